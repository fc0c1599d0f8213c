package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/audit"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestAuditRead: GET /api/v1/audit gives a repository's admins every
// entry of its chain, a writer only their own, nobody else anything (403),
// a personal repository only to its owner; pages follow each other; bad
// parameters are 400. On both stores.
func TestAuditRead(t *testing.T) {
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			o := servertest.Options{}
			if store == "postgres" {
				db, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{Migrate: true})
				if err != nil {
					t.Fatal(err)
				}
				o.Store = db
			}
			testAuditRead(t, newTestServer(t, o))
		})
	}
}

func testAuditRead(t *testing.T, ts *testServer) {
	ana, bob := ts.Token("ana", "acme/*:write"), ts.Token("bob", "acme/*:write")
	for i, tok := range []string{ana, bob, ana} {
		putAs(t, ts.Server, tok, "acme/api", map[string]string{fmt.Sprintf("k%d.md", i): "x"}, http.StatusOK)
	}
	get := func(query, token string, want int) api.AuditPage {
		t.Helper()
		r := ts.Do(http.MethodGet, api.PathAudit+"?"+query, token, nil)
		if r.Status != want {
			t.Fatalf("GET audit?%s: status %d, want %d: %s", query, r.Status, want, r.Body)
		}
		if want != http.StatusOK {
			return api.AuditPage{}
		}
		return servertest.Decode[api.AuditPage](t, r)
	}
	actors := func(p api.AuditPage) string {
		var s []string
		for _, e := range p.Entries {
			var rec server.AuditRecord
			if err := json.Unmarshal(e.Record, &rec); err != nil {
				t.Fatal(err)
			}
			s = append(s, fmt.Sprintf("%d:%s", e.Seq, rec.By.Subject))
		}
		return fmt.Sprint(s)
	}
	if got := actors(get("repo=acme/api", ts.Admin, http.StatusOK)); got != "[1:ana 2:bob 3:ana]" {
		t.Errorf("the admin reads %s; want every entry", got)
	}
	if got := actors(get("repo=acme/api", ana, http.StatusOK)); got != "[1:ana 3:ana]" {
		t.Errorf("ana reads %s; want her own", got)
	}
	if got := actors(get("repo=acme/api", ts.Token("rita", "acme/*:read"), http.StatusOK)); got != "[]" {
		t.Errorf("a reader who wrote nothing reads %s; want nothing", got)
	}
	get("repo=acme/api", ts.Token("eve", "other/*:admin"), http.StatusForbidden)
	get("repo=acme/api", "", http.StatusUnauthorized)
	p1 := get("repo=acme/api&limit=2", ts.Admin, http.StatusOK)
	p2 := get(fmt.Sprintf("repo=acme/api&limit=2&after=%d", p1.Next), ts.Admin, http.StatusOK)
	if actors(p1) != "[1:ana 2:bob]" || p1.Next != 2 || actors(p2) != "[3:ana]" || p2.Next != 0 {
		t.Errorf("pages %s (next %d), %s (next %d)", actors(p1), p1.Next, actors(p2), p2.Next)
	}
	if p := get("repo=acme/api&since=2999-01-01T00:00:00Z", ts.Admin, http.StatusOK); len(p.Entries) != 0 {
		t.Errorf("entries since the future: %s", actors(p))
	}
	for _, bad := range []string{"repo=acme/api&since=yesterday", "repo=acme/api&limit=1001", "repo=acme/api&after=-1", "repo=../x"} {
		get(bad, ts.Admin, http.StatusBadRequest)
	}
	// A personal repository: its owner reads their own acts; an admin of
	// everything is refused as for any repository they cannot read.
	mine := server.PersonalMark + "/acme/notes"
	putAs(t, ts.Server, ana, mine, map[string]string{"a.md": "x"}, http.StatusOK)
	if got := actors(get("repo="+mine, ana, http.StatusOK)); got != "[1:ana]" {
		t.Errorf("ana reads her personal chain as %s", got)
	}
	get("repo="+server.PersonalRepo("ana", "acme/notes"), ts.Admin, http.StatusForbidden)
}

// TestAuditTwoReplicas: two servers on one Postgres database take writes
// to one repository at once; its chain holds one entry per version, in
// one line, and verifies.
func TestAuditTwoReplicas(t *testing.T) {
	dbURL := pgtest.URL(t)
	open := func() *postgres.DB {
		db, err := postgres.Open(context.Background(), dbURL, postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	a := newTestServer(t, servertest.Options{Store: open()})
	bStore := open()
	b := &testServer{Server: a.Replica(t, servertest.Options{Store: bStore}), t: t}
	ana := a.Token("ana", "acme/*:write")
	var wg sync.WaitGroup
	for i, s := range []*testServer{a, b, a, b} {
		wg.Go(func() {
			for n := range 10 {
				putAs(t, s.Server, ana, "acme/api", map[string]string{fmt.Sprintf("k%d-%d.md", i, n): "x"}, http.StatusOK)
			}
		})
	}
	wg.Wait()
	page := servertest.Decode[api.AuditPage](t, b.Do(http.MethodGet, api.PathAudit+"?repo=acme/api&limit=1000", a.Admin, nil))
	if len(page.Entries) != 40 {
		t.Fatalf("%d entries; want 40", len(page.Entries))
	}
	for i, e := range page.Entries {
		var rec server.AuditRecord
		if err := json.Unmarshal(e.Record, &rec); err != nil || e.Seq != int64(i+1) || rec.Version != int64(i+1) {
			t.Fatalf("entry %d: seq %d, version %d, %v; want both %d", i, e.Seq, rec.Version, err, i+1)
		}
	}
	if r, err := audit.Verify(context.Background(), bStore, nil); err != nil || len(r.Problems) != 0 || r.Entries != 40 {
		t.Errorf("Verify = %+v, %v; want 40 entries and no problem", r, err)
	}
}
