package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestBlame: GET /api/v1/blame names, for every line, the revision that
// introduced it with its provenance; at a version, the key as it stood
// then; a deleted key has no lines; errors as the other key reads.
func TestBlame(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ana, _ := tokenWithID(t, ts, "ana", "acme/*:write")
	bob, _ := tokenWithID(t, ts, "bob", "acme/*:write")
	putAs(t, ts.Server, ana, "acme/api", map[string]string{"MEMORY.md": "- [Deploys](deploys.md)\n- [Style](style.md)\n"}, http.StatusOK,
		api.HeaderMachine, "ana-laptop")
	putAs(t, ts.Server, bob, "acme/api", map[string]string{"MEMORY.md": "- [Deploys](deploys.md)\n- [DB](db.md)\n- [Style](style.md)\n"},
		http.StatusOK, api.HeaderSurface, "mcp")
	putAs(t, ts.Server, ana, "acme/api", map[string]string{"other.md": "x"}, http.StatusOK) // version 3, another key

	get := func(query, token string, want int) servertest.Response {
		t.Helper()
		r := ts.Do(http.MethodGet, api.PathBlame+"?"+query, token, nil)
		if r.Status != want {
			t.Fatalf("GET blame?%s: status %d, want %d: %s", query, r.Status, want, r.Body)
		}
		return r
	}
	b := servertest.Decode[api.Blame](t, get("repo=acme/api&key=MEMORY.md", ts.Admin, http.StatusOK))
	wantLines := []api.BlameLine{{Text: "- [Deploys](deploys.md)", Version: 1}, {Text: "- [DB](db.md)", Version: 2}, {Text: "- [Style](style.md)", Version: 1}}
	if diff := cmp.Diff(wantLines, b.Lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if b.Version != 2 || b.Op != api.OpPut || b.Repo != "acme/api" || len(b.Revisions) != 2 ||
		b.Revisions[0].Provenance.Subject != "ana" || b.Revisions[0].Provenance.Machine != "ana-laptop" ||
		b.Revisions[1].Provenance.Subject != "bob" || b.Revisions[1].Provenance.Surface != "mcp" {
		t.Errorf("blame %+v", b)
	}
	// At version 1, and at version 3 (MEMORY.md as it stood then: its
	// revision 2).
	if b := servertest.Decode[api.Blame](t, get("repo=acme/api&key=MEMORY.md&version=1", ts.Admin, http.StatusOK)); b.Version != 1 || len(b.Lines) != 2 {
		t.Errorf("at version 1: %+v", b)
	}
	if b := servertest.Decode[api.Blame](t, get("repo=acme/api&key=MEMORY.md&version=3", ts.Admin, http.StatusOK)); b.Version != 2 || len(b.Lines) != 3 {
		t.Errorf("at version 3: %+v", b)
	}
	ts.Put("acme/api", nil, []string{"MEMORY.md"}, http.StatusOK)
	if b := servertest.Decode[api.Blame](t, get("repo=acme/api&key=MEMORY.md", ts.Admin, http.StatusOK)); b.Op != api.OpDelete || len(b.Lines) != 0 || len(b.Revisions) != 0 {
		t.Errorf("after the delete: %+v", b)
	}
	get("repo=acme/api&key=never.md", ts.Admin, http.StatusNotFound)
	get("repo=acme/web&key=MEMORY.md", ts.Admin, http.StatusNotFound)
	get("repo=acme/api&key=other.md&version=2", ts.Admin, http.StatusNotFound) // created at 3
	get("repo=acme/api&key=MEMORY.md", ts.Token("eve", "other/*:read"), http.StatusForbidden)
	get("repo=acme/api&key=../x.md", ts.Admin, http.StatusBadRequest)
	get("repo=acme/api&key=MEMORY.md&version=-1", ts.Admin, http.StatusBadRequest)
	get("repo=acme/api&key=MEMORY.md", "", http.StatusUnauthorized)
}
