package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/testkit/servertest"
)

const headCommit = "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39"

// tokenWithID issues a token for subject with grants and returns it with
// its id.
func tokenWithID(t *testing.T, ts *testServer, subject string, grants ...string) (string, string) {
	t.Helper()
	tok, rec, err := (&auth.Issuer{Key: ts.Key}).IssueRecord(subject, grants, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok, rec.ID
}

func putAs(t *testing.T, ts *servertest.Server, token, repo string, entries map[string]string, want int, headers ...string) servertest.Response {
	t.Helper()
	body, _ := json.Marshal(api.PutRequest{Entries: entries})
	r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo="+repo, token, body, headers...)
	if r.Status != want {
		t.Fatalf("PUT: status %d, want %d: %s", r.Status, want, r.Body)
	}
	return r
}

// TestProvenanceStamped: a PUT's provenance names the verified token's
// subject and id whatever headers claim otherwise, the surface it
// narrows to, its User-Agent, machine and commit; history, revision,
// activity and the events stream all show it.
func TestProvenanceStamped(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	tok, id := tokenWithID(t, ts, "ana", "acme/*:write")
	putAs(t, ts.Server, tok, "acme/api", map[string]string{"MEMORY.md": "- one\n"}, http.StatusOK,
		"User-Agent", "teammem-agent/1.4.0", api.HeaderMachine, "ana-laptop", api.HeaderCommit, headCommit,
		api.HeaderSurface, "seed",
		// Forged identities: never read.
		"Teammem-Subject", "mallory", "X-Forwarded-User", "mallory", "X-Remote-User", "mallory", "Teammem-Credential", "token:0")
	want := &api.Provenance{Subject: "ana", Credential: "token:" + id, Surface: "seed", Client: "teammem-agent/1.4.0",
		Machine: "ana-laptop", Commit: headCommit}

	h := servertest.Decode[api.History](t, ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=MEMORY.md", ts.Admin, nil))
	if len(h.Revisions) != 1 {
		t.Fatalf("history %+v", h)
	}
	checkWire(t, "history", want, h.Revisions[0].Provenance)
	rv := servertest.Decode[api.RevisionContent](t, ts.Do(http.MethodGet, api.PathRevision+"?repo=acme/api&key=MEMORY.md", ts.Admin, nil))
	checkWire(t, "revision", want, rv.Provenance)
	a := servertest.Decode[api.Activity](t, ts.Do(http.MethodGet, api.PathActivity+"?repo=acme/api", ts.Admin, nil))
	checkWire(t, "activity", want, a.Items[0].Provenance)
	c := ts.openEvents(api.PathEvents+"?repo=acme/api", ts.Admin, "Last-Event-ID", "0")
	checkWire(t, "replayed event", want, c.change().Provenance)

	// A live event, and a PUT without the agent's headers: the stock
	// client's.
	putAs(t, ts.Server, tok, "acme/api", map[string]string{"MEMORY.md": "- one\n- two\n"}, http.StatusOK,
		"User-Agent", "claude-cli/2.1.0 (external, cli)")
	checkWire(t, "live event", &api.Provenance{Subject: "ana", Credential: "token:" + id, Surface: "agent",
		Client: "claude-cli/2.1.0 (external, cli)"}, c.change().Provenance)
}

func checkWire(t *testing.T, what string, want, got *api.Provenance) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: provenance (-want +got):\n%s", what, diff)
	}
}

// TestProvenanceHostileHeaders: a Teammem- header the server does not
// keep refuses the PUT with 400 invalid_header and writes nothing; a
// hostile User-Agent is kept made harmless, never refused.
func TestProvenanceHostileHeaders(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	refused := []struct {
		name    string
		headers []string
	}{
		{"machine too long", []string{api.HeaderMachine, strings.Repeat("m", server.MaxMachineBytes+1)}},
		{"machine with a tab", []string{api.HeaderMachine, "ana\tlaptop"}},
		{"machine with a bidi override", []string{api.HeaderMachine, "ana\u202epotpal"}},
		{"machine with a zero-width space", []string{api.HeaderMachine, "ana\u200blaptop"}},
		{"machine with a line separator", []string{api.HeaderMachine, "ana\u2028laptop"}},
		{"machine not UTF-8", []string{api.HeaderMachine, "ana\xfflaptop"}},
		{"commit not hex", []string{api.HeaderCommit, "main"}},
		{"commit too short", []string{api.HeaderCommit, "4f2a9c"}},
		{"commit too long", []string{api.HeaderCommit, strings.Repeat("a", 65)}},
		{"commit in capitals", []string{api.HeaderCommit, strings.ToUpper(headCommit)}},
		{"surface of the web UI", []string{api.HeaderSurface, "web"}},
		{"surface unknown", []string{api.HeaderSurface, "unknown"}},
		{"surface admin", []string{api.HeaderSurface, "admin"}},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			r := putAs(t, ts.Server, ts.Admin, "acme/api", map[string]string{"a.md": tt.name}, http.StatusBadRequest, tt.headers...)
			if code := r.ErrorBody(t).Code(); code != api.CodeInvalidHeader {
				t.Errorf("error code %q; want %s", code, api.CodeInvalidHeader)
			}
		})
	}
	t.Run("header sent twice", func(t *testing.T) {
		body, _ := json.Marshal(api.PutRequest{Entries: map[string]string{"a.md": "twice"}})
		req := ts.NewRequest(context.Background(), http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.Admin, strings.NewReader(string(body)))
		req.Header.Add(api.HeaderMachine, "one")
		req.Header.Add(api.HeaderMachine, "two")
		resp, err := ts.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("status %d; want 400", resp.StatusCode)
		}
	})
	t.Run("control character", func(t *testing.T) {
		if status := rawPut(t, ts, api.HeaderMachine+": ana\x1blaptop"); status != http.StatusBadRequest {
			t.Errorf("status %d; want 400", status)
		}
	})
	ts.Get("repo=acme/api", http.StatusNotFound) // nothing was written

	ua := "evil\u202e/1.0 " + strings.Repeat("x", 300)
	putAs(t, ts.Server, ts.Admin, "acme/api", map[string]string{"a.md": "kept"}, http.StatusOK, "User-Agent", ua)
	h := servertest.Decode[api.History](t, ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=a.md", ts.Admin, nil))
	client := h.Revisions[0].Provenance.Client
	if len(client) > server.MaxClientBytes || strings.ContainsRune(client, '\u202e') || !strings.HasPrefix(client, "evil\ufffd/1.0 x") {
		t.Errorf("client kept as %q; want the User-Agent cut to %d bytes, its override replaced", client, server.MaxClientBytes)
	}
}

// rawPut sends a PUT with one raw header line over a bare connection (Go's
// client refuses control characters in headers) and returns the status.
func rawPut(t *testing.T, ts *testServer, header string) int {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"entries":{"a.md":"raw"}}`
	fmt.Fprintf(conn, "PUT %s?repo=acme/api HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n%s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		api.PathTeamMemory, ts.Admin, header, len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestProvenanceAcrossReplicas: two servers, each with its own pool on
// one Postgres database: a write through one reads with its provenance
// through the other, in its history and the events its stream replays.
func TestProvenanceAcrossReplicas(t *testing.T) {
	a, b := pgReplicas(t)
	tok, id := tokenWithID(t, a, "ana", "acme/*:write")
	putAs(t, a.Server, tok, "acme/api", map[string]string{"a.md": "x"}, http.StatusOK,
		"User-Agent", "teammem-agent/1.4.0", api.HeaderMachine, "ana-laptop", api.HeaderCommit, headCommit)
	want := &api.Provenance{Subject: "ana", Credential: "token:" + id, Surface: "agent", Client: "teammem-agent/1.4.0",
		Machine: "ana-laptop", Commit: headCommit}
	c := b.openEvents(api.PathEvents+"?repo=acme/api", b.Admin, "Last-Event-ID", "0")
	checkWire(t, "event at the other replica", want, c.change().Provenance)
	h := servertest.Decode[api.History](t, b.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=a.md", b.Admin, nil))
	checkWire(t, "history at the other replica", want, h.Revisions[0].Provenance)
}
