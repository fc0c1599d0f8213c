package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

// onBothStores runs test against a server on the embedded store and one on
// Postgres.
func onBothStores(t *testing.T, test func(t *testing.T, ts *testServer)) {
	t.Run("sqlite", func(t *testing.T) { test(t, newTestServer(t, servertest.Options{})) })
	t.Run("postgres", func(t *testing.T) {
		db, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		test(t, newTestServer(t, servertest.Options{Store: db}))
	})
}

// TestOrgMemoryGrants: a reader of one repository of a namespace reads its
// org memory (pull, list, search) and nothing else of the namespace; a
// reader of another namespace with a common prefix reads nothing of it; a
// glob write grant does not write it, a literal one or admin does; nested
// groups reach every namespace above.
func TestOrgMemoryGrants(t *testing.T) {
	onBothStores(t, func(t *testing.T, ts *testServer) {
		for _, r := range []string{"acme/.memory", "acme/api", "acme/web", "acme-corp/.memory", "group/.memory", "group/sub/.memory", "group/sub/proj"} {
			ts.Put(r, map[string]string{"MEMORY.md": "- deploy zebra of " + r + "\n"}, nil, http.StatusOK)
		}
		apiReader := ts.Token("ana", "acme/api:read")
		corp := ts.Token("cora", "acme-corp/*:read")
		nested := ts.Token("nia", "group/sub/proj:read")
		globWriter := ts.Token("gus", "acme/*:write", "acme/**:write")
		literal := ts.Token("lia", "acme/.memory:write")
		admin := ts.Token("ada", "acme/*:admin")

		pull := func(tok, repo string) int {
			return ts.Do(http.MethodGet, api.PathTeamMemory+"?repo="+repo, tok, nil).Status
		}
		for _, c := range []struct {
			who, tok, repo string
			want           int
		}{
			{"acme/api reader", apiReader, "acme/.memory", http.StatusOK},
			{"acme/api reader", apiReader, "acme/web", http.StatusForbidden},
			{"acme/api reader", apiReader, "acme-corp/.memory", http.StatusForbidden},
			{"acme-corp reader", corp, "acme/.memory", http.StatusForbidden},
			{"acme-corp reader", corp, "acme/api", http.StatusForbidden},
			{"nested reader", nested, "group/sub/.memory", http.StatusOK},
			{"nested reader", nested, "group/.memory", http.StatusOK},
			{"nested reader", nested, "acme/.memory", http.StatusForbidden},
		} {
			if got := pull(c.tok, c.repo); got != c.want {
				t.Errorf("%s pulls %s: %d, want %d", c.who, c.repo, got, c.want)
			}
		}

		repos := func(tok string) []string {
			var out []string
			for _, r := range servertest.Decode[api.RepoList](t, ts.Do(http.MethodGet, api.PathRepos, tok, nil)).Repos {
				out = append(out, r.Repo)
			}
			return out
		}
		if got := repos(apiReader); !slices.Equal(got, []string{"acme/.memory", "acme/api"}) {
			t.Errorf("acme/api reader lists %q", got)
		}
		if got := repos(corp); !slices.Equal(got, []string{"acme-corp/.memory"}) {
			t.Errorf("acme-corp reader lists %q", got)
		}
		if got := repos(nested); !slices.Equal(got, []string{"group/.memory", "group/sub/.memory", "group/sub/proj"}) {
			t.Errorf("nested reader lists %q", got)
		}
		search := func(tok string) []string {
			var out []string
			for _, r := range servertest.Decode[api.SearchResults](t, ts.Do(http.MethodGet, api.PathSearch+"?q=zebra", tok, nil)).Results {
				out = append(out, r.Repo)
			}
			slices.Sort(out)
			return out
		}
		if got := search(apiReader); !slices.Equal(got, []string{"acme/.memory", "acme/api"}) {
			t.Errorf("acme/api reader finds %q", got)
		}
		if got := search(corp); !slices.Equal(got, []string{"acme-corp/.memory"}) {
			t.Errorf("acme-corp reader finds %q", got)
		}

		put := func(tok, repo string) servertest.Response {
			body, _ := json.Marshal(api.PutRequest{Entries: map[string]string{"MEMORY.md": "- by " + tok[:8] + "\n"}})
			return ts.Do(http.MethodPut, api.PathTeamMemory+"?repo="+repo, tok, body)
		}
		if r := put(globWriter, "acme/.memory"); r.Status != http.StatusForbidden {
			t.Errorf("acme/*:write and acme/**:write PUT acme/.memory: %d, want 403: %s", r.Status, r.Body)
		}
		if r := put(globWriter, "acme/api"); r.Status != http.StatusOK {
			t.Errorf("acme/*:write PUT acme/api: %d: %s", r.Status, r.Body)
		}
		if got := pull(globWriter, "acme/.memory"); got != http.StatusOK {
			t.Errorf("acme/*:write pulls acme/.memory: %d, want 200", got)
		}
		for who, tok := range map[string]string{"acme/.memory:write": literal, "acme/*:admin": admin} {
			if r := put(tok, "acme/.memory"); r.Status != http.StatusOK {
				t.Errorf("%s PUT acme/.memory: %d, want 200: %s", who, r.Status, r.Body)
			}
		}
		if r := put(literal, "acme/api"); r.Status != http.StatusForbidden {
			t.Errorf("acme/.memory:write PUT acme/api: %d, want 403", r.Status)
		}
		if r := put(apiReader, "acme/.memory"); r.Status != http.StatusForbidden {
			t.Errorf("a reader PUT acme/.memory: %d, want 403", r.Status)
		}
	})
}

// TestOrgMemoryHostileSlugs: .memory anywhere but last is no slug, an
// org memory has no personal memory; ..memory is an ordinary
// repository's name.
func TestOrgMemoryHostileSlugs(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	tok := ts.Token("gus", "**:admin")
	for _, repo := range []string{"acme/.memory/x", ".memory", ".memory/x", "acme/.memory/.memory", "acme/%2e%2e/.memory", "~/acme/.memory", "~/.agent-memory-local/acme/.memory"} {
		if r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo="+repo, tok, nil); r.Status != http.StatusBadRequest {
			t.Errorf("GET repo=%s: %d, want 400", repo, r.Status)
		}
	}
	if r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=acme/..memory", ts.Token("w", "acme/*:read"), nil); r.Status == http.StatusBadRequest || r.Status == http.StatusForbidden {
		t.Errorf("acme/..memory is an ordinary repository: %d", r.Status)
	}
}

// TestOrgMemoryAcrossReplicas: two replicas on one Postgres database
// apply the same grant rule: a write of acme/.memory through one by a
// literal grant is read through the other by a reader of acme/api, and a
// glob write grant is refused by both.
func TestOrgMemoryAcrossReplicas(t *testing.T) {
	dbURL := pgtest.URL(t)
	open := func() *postgres.DB {
		db, err := postgres.Open(context.Background(), dbURL, postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	a := newTestServer(t, servertest.Options{Store: open()})
	b := a.Replica(t, servertest.Options{Store: open()})
	body, _ := json.Marshal(api.PutRequest{Entries: map[string]string{"MEMORY.md": "- replicated\n"}})
	if r := a.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/.memory", a.Token("lia", "acme/.memory:write"), body); r.Status != http.StatusOK {
		t.Fatalf("literal grant PUT on a: %d %s", r.Status, r.Body)
	}
	if r := b.Do(http.MethodGet, api.PathTeamMemory+"?repo=acme/.memory", b.Token("ana", "acme/api:read"), nil); r.Status != http.StatusOK ||
		!strings.Contains(string(r.Body), "replicated") {
		t.Errorf("acme/api reader GET on b: %d %s", r.Status, r.Body)
	}
	glob := a.Token("gus", "acme/*:write")
	for name, s := range map[string]*servertest.Server{"a": a.Server, "b": b} {
		if r := s.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/.memory", glob, body); r.Status != http.StatusForbidden {
			t.Errorf("glob write grant PUT on %s: %d", name, r.Status)
		}
	}
}
