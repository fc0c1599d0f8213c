package httpapi_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/proctest"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestPolicyAcrossReplicas: two servers on one Postgres, each with its
// LISTEN broker. A writer's push through B right after `policy set` returned
// on A obeys the new policy, though B wrote the repository before and so
// holds its old policy in memory; set back to off on A, B's next push lands.
// With B's LISTEN connection killed (its backend terminated) and the policy
// set again on A before B listens again, B's next push still obeys it: no
// notice is needed, the write's own transaction checks the policy it was
// cut by.
func TestPolicyAcrossReplicas(t *testing.T) {
	dbURL := pgtest.URL(t)
	dbA, dbB := openPG(t, dbURL), openPG(t, dbURL)
	brokerB := dbB.NewBroker(nil)
	var listenerB atomic.Uint32
	brokerB.OnListen = listenerB.Store
	a := newTestServer(t, servertest.Options{Store: dbA, Broker: dbA.NewBroker(nil)})
	b := &testServer{Server: a.Replica(t, servertest.Options{Store: dbB, Broker: brokerB}), t: t}
	proctest.WaitFor(t, "both replicas to listen", func() bool { return a.Hub.Ready() == nil && b.Hub.Ready() == nil })
	bob := a.Token("bob", "acme/api:write")

	landed := func(step, text string) {
		t.Helper()
		res, _ := b.putAs(bob, "acme/api", map[string]string{"a.md": text})
		if res.Proposal != nil || len(res.Changed) != 1 {
			t.Fatalf("%s: push through B = %+v; want it landed", step, res)
		}
	}
	proposed := func(step, text, live string) {
		t.Helper()
		res, _ := b.putAs(bob, "acme/api", map[string]string{"a.md": text})
		if res.Proposal == nil || len(res.Changed) != 0 {
			t.Fatalf("%s: push through B = %+v; want a proposal and nothing landed", step, res)
		}
		pull := servertest.Decode[api.TeamMemory](t, b.Get("repo=acme/api", http.StatusOK))
		if got := pull.Content.Entries["a.md"]; got != live {
			t.Fatalf("%s: B serves a.md %q; want %q", step, got, live)
		}
	}

	landed("policy never set", "one\n")
	a.setPolicy(a.Admin, "acme/api", "all", http.StatusOK)
	proposed("policy all set on A", "two\n", "one\n")
	a.setPolicy(a.Admin, "acme/api", "off", http.StatusOK)
	landed("policy off set on A", "three\n")

	killer, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(context.Background())
	pid := listenerB.Load()
	var ok bool
	if err := killer.QueryRow(context.Background(), `SELECT pg_terminate_backend($1)`, int32(pid)).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend(%d) = %v, %v", pid, ok, err)
	}
	a.setPolicy(a.Admin, "acme/api", "changes", http.StatusOK) // B may not be listening: the notice is no help
	proposed("policy changes set on A, B's listener killed", "four\n", "three\n")
	a.setPolicy(a.Admin, "acme/api", "off", http.StatusOK)
	landed("policy off again", "five\n")
}
