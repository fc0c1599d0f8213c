package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestPersonalMemory: "~/<slug>" is the caller's own personal repository;
// its owner reads and writes it with the team memory's rules (a secret is
// refused, history kept); the team repository of the slug is untouched;
// and a second subject holding **:admin gets the same 403 on every
// endpoint for the owner's repository as for one that does not exist, and
// finds nothing of it by listing or searching.
func TestPersonalMemory(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	alice := ts.Token("alice", "acme/*:write")
	mine := server.PersonalRepo("alice", "acme/api")

	body, _ := json.Marshal(api.PutRequest{Entries: map[string]string{
		"MEMORY.md": "- [plan](plan.md) — my plan\n",
		"plan.md":   "private zebra plan",
		"secret.md": "post to https://hooks.slack.com/services/T" + randomAlnum(10) + "/B" + randomAlnum(10) + "/" + randomAlnum(24) + "\n",
	}})
	r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo="+url.QueryEscape("~/Acme/API.git"), alice, body)
	if r.Status != http.StatusOK {
		t.Fatalf("owner's PUT: %d %s", r.Status, r.Body)
	}
	put := servertest.Decode[api.PutResponse](t, r)
	if len(put.Skipped) != 1 || put.Skipped[0].Key != "secret.md" {
		t.Errorf("skipped %+v; want secret.md refused", put.Skipped)
	}
	for _, name := range []string{"~/acme/api", mine} {
		r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo="+url.QueryEscape(name), alice, nil)
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "private zebra plan") {
			t.Errorf("owner's GET %s: %d %s", name, r.Status, r.Body)
		}
	}
	if r := ts.Do(http.MethodGet, api.PathHistory+"?repo=~/acme/api&key=plan.md", alice, nil); r.Status != http.StatusOK {
		t.Errorf("owner's history: %d %s", r.Status, r.Body)
	}
	if got := hitKeys(servertest.Decode[api.SearchResults](t, ts.Do(http.MethodGet, searchPath("zebra"), alice, nil))); !slices.Equal(got, []string{mine + ":plan.md"}) {
		t.Errorf("owner's search: %q", got)
	}
	if r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", alice, nil); r.Status != http.StatusNotFound {
		t.Errorf("the team repository acme/api: %d %s; want 404 (never written)", r.Status, r.Body)
	}

	admin := ts.Token("root", "**:admin")
	absent := server.PersonalRepo("alice", "acme/none")
	nobody := server.PersonalRepo("nobody", "x/y")
	endpoints := []struct {
		method, path string
		body         []byte
	}{
		{http.MethodGet, api.PathTeamMemory + "?repo=%s", nil},
		{http.MethodGet, api.PathTeamMemory + "?view=hashes&repo=%s", nil},
		{http.MethodPut, api.PathTeamMemory + "?repo=%s", []byte(`{"entries":{"plan.md":"overwritten"}}`)},
		{http.MethodGet, api.PathEvents + "?repo=%s", nil},
		{http.MethodGet, api.PathHistory + "?key=plan.md&repo=%s", nil},
		{http.MethodGet, api.PathRevision + "?key=plan.md&version=1&repo=%s", nil},
		{http.MethodGet, api.PathActivity + "?repo=%s", nil},
		{http.MethodPost, api.PathSeen + "?repo=%s", []byte(`{"entries":{"plan.md":"sha256:` + strings.Repeat("0", 64) + `"}}`)},
		{http.MethodGet, api.PathSearch + "?q=zebra&repo=%s", nil},
	}
	for _, ep := range endpoints {
		var seen []string
		for _, repo := range []string{mine, strings.ToUpper(mine), absent, nobody} {
			path := strings.Replace(ep.path, "%s", url.QueryEscape(repo), 1)
			r := ts.Do(ep.method, path, admin, ep.body)
			if r.Status != http.StatusForbidden {
				t.Errorf("admin %s %s: %d %s; want 403", ep.method, path, r.Status, r.Body)
				continue
			}
			e := r.ErrorBody(t)
			canon, _ := server.CanonicalRepo(repo)
			seen = append(seen, e.Code()+" "+strings.ReplaceAll(e.Message, canon, "R"))
		}
		if len(slices.Compact(seen)) > 1 {
			t.Errorf("admin %s %s: answers differ between an existing and an absent personal repository: %q", ep.method, ep.path, seen)
		}
	}
	for _, r := range servertest.Decode[api.RepoList](t, ts.Do(http.MethodGet, api.PathRepos, admin, nil)).Repos {
		if server.IsPersonal(r.Repo) {
			t.Errorf("the admin's repository list names %s", r.Repo)
		}
	}
	if got := hitKeys(servertest.Decode[api.SearchResults](t, ts.Do(http.MethodGet, searchPath("zebra"), admin, nil))); len(got) != 0 {
		t.Errorf("the admin's search found %q", got)
	}
	if r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=~/acme/api", admin, nil); r.Status != http.StatusNotFound {
		t.Errorf("the admin's own ~/acme/api: %d %s; want 404 (their own, never written)", r.Status, r.Body)
	}
	if got := string(ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=~/acme/api", alice, nil).Body); strings.Contains(got, "overwritten") {
		t.Errorf("the admin's PUT reached the owner's memory: %s", got)
	}

	// A reader of everything searches every team repository and its own
	// personal ones (listed by their prefix), never another subject's: not
	// alice's, nor those of a subject whose space starts with its own.
	boss, bossx := ts.Token("admin", "**:write"), ts.Token("adminx", "acme/*:write")
	if !strings.HasPrefix(server.PersonalSpace("adminx"), server.PersonalSpace("admin")) {
		t.Fatalf("the spaces of admin and adminx do not share a prefix: %s %s", server.PersonalSpace("admin"), server.PersonalSpace("adminx"))
	}
	for _, w := range []struct{ repo, token, body string }{
		{"acme/web", boss, `{"entries":{"zebra.md":"team zebra notes"}}`},
		{"~/acme/api", boss, `{"entries":{"own.md":"the admin's own zebra"}}`},
		{"~/acme/api", bossx, `{"entries":{"x.md":"adminx zebra"}}`},
	} {
		if r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo="+url.QueryEscape(w.repo), w.token, []byte(w.body)); r.Status != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", w.repo, r.Status, r.Body)
		}
	}
	got := hitKeys(servertest.Decode[api.SearchResults](t, ts.Do(http.MethodGet, searchPath("zebra"), boss, nil)))
	slices.Sort(got)
	if want := []string{"acme/web:zebra.md", server.PersonalRepo("admin", "acme/api") + ":own.md"}; !slices.Equal(got, want) {
		t.Errorf("the search of everything by a reader of everything found %q; want %q", got, want)
	}
}

// TestPersonalRepoNames: malformed personal names are 400 invalid_repo,
// never a repository of their own.
func TestPersonalRepoNames(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	alice := ts.Token("alice", "**:admin")
	for _, repo := range []string{"~", "~/", "~/acme", "~x!/acme/api", "~/~/acme/api", "~w/acme/api", "~/../acme/api"} {
		r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo="+url.QueryEscape(repo), alice, nil)
		if r.Status != http.StatusBadRequest || r.ErrorBody(t).Code() != "invalid_repo" {
			t.Errorf("GET %q: %d %s; want 400 invalid_repo", repo, r.Status, r.Body)
		}
	}
}
