package httpapi_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/servertest"
)

func searchPath(q string, params ...string) string {
	v := url.Values{"q": {q}}
	for i := 0; i+1 < len(params); i += 2 {
		v.Set(params[i], params[i+1])
	}
	return api.PathSearch + "?" + v.Encode()
}

func hitKeys(res api.SearchResults) []string {
	var out []string
	for _, r := range res.Results {
		out = append(out, r.Repo+":"+r.Key)
	}
	return out
}

// TestSearch: results come only from readable repositories, a write is
// found as soon as it is acknowledged, snippets mark the matches, pages
// follow each other and a cursor only serves its own query.
func TestSearch(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"db.md": "Set pool_max_conns to 16 in the Café config.", "x.md": "secret plan"}, nil, http.StatusOK)
	ts.Put("acme/web", map[string]string{"ui.md": "The web pool is small."}, nil, http.StatusOK)
	ts.Put("other/ops", map[string]string{"plan.md": "secret plan of ops, pool too"}, nil, http.StatusOK)

	res := servertest.Decode[api.SearchResults](t, ts.Do(http.MethodGet, searchPath("POOL_max_conns"), ts.Admin, nil))
	if len(res.Results) != 1 || res.Next != nil {
		t.Fatalf("results %+v", res)
	}
	r := res.Results[0]
	if r.Repo != "acme/api" || r.Key != "db.md" || r.Version != 1 || r.Snippet.Text != "Set pool_max_conns to 16 in the Café config." ||
		!slices.Equal(r.Snippet.Matches, [][2]int{{4, 18}}) {
		t.Errorf("result %+v", r)
	}

	reader := ts.Token("ana", "acme/*:read")
	if got := hitKeys(servertest.Decode[api.SearchResults](t, ts.Do(http.MethodGet, searchPath("pool"), reader, nil))); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"acme/api:db.md", "acme/web:ui.md"}) {
		t.Errorf("reader's results %q; want acme's only", got)
	}
	if got := hitKeys(servertest.Decode[api.SearchResults](t, ts.Do(http.MethodGet, searchPath("secret plan"), reader, nil))); !slices.Equal(got, []string{"acme/api:x.md"}) {
		t.Errorf("reader's results %q; want acme/api:x.md alone", got)
	}
	if got := hitKeys(servertest.Decode[api.SearchResults](t, ts.Do(http.MethodGet, searchPath("pool", "repo", "Acme/Web.git"), reader, nil))); !slices.Equal(got, []string{"acme/web:ui.md"}) {
		t.Errorf("one repository: %q", got)
	}
	nobody := ts.Token("bob", "zeta/*:read")
	if res := servertest.Decode[api.SearchResults](t, ts.Do(http.MethodGet, searchPath("pool"), nobody, nil)); len(res.Results) != 0 || res.Next != nil {
		t.Errorf("a token reading nothing that exists: %+v", res)
	}

	// An acknowledged write is found at once; its old text is not.
	ts.Put("acme/web", map[string]string{"ui.md": "Now about the frobnicator."}, nil, http.StatusOK)
	if got := hitKeys(servertest.Decode[api.SearchResults](t, ts.Do(http.MethodGet, searchPath("frobnicator"), reader, nil))); len(got) != 1 {
		t.Errorf("after the edit: %q", got)
	}
	if got := hitKeys(servertest.Decode[api.SearchResults](t, ts.Do(http.MethodGet, searchPath("web pool"), reader, nil))); len(got) != 0 {
		t.Errorf("old text still found: %q", got)
	}

	// Pages: 5 entries, 2 per page.
	many := map[string]string{}
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		many[k+".md"] = "paged word " + k
	}
	ts.Put("acme/pages", many, nil, http.StatusOK)
	var all []string
	path := searchPath("paged", "limit", "2")
	for range 4 {
		page := servertest.Decode[api.SearchResults](t, ts.Do(http.MethodGet, path, ts.Admin, nil))
		all = append(all, hitKeys(page)...)
		if page.Next == nil {
			break
		}
		path = searchPath("paged", "limit", "2", "cursor", *page.Next)
		if r := ts.Do(http.MethodGet, searchPath("other", "cursor", *page.Next), ts.Admin, nil); r.Status != http.StatusBadRequest {
			t.Errorf("a cursor with another query = %d %s", r.Status, r.Body)
		}
		if r := ts.Do(http.MethodGet, searchPath("paged", "repo", "acme/pages", "cursor", *page.Next), ts.Admin, nil); r.Status != http.StatusBadRequest {
			t.Errorf("a cursor with another repo = %d %s", r.Status, r.Body)
		}
	}
	if len(all) != 5 || len(slices.Compact(slices.Sorted(slices.Values(all)))) != 5 {
		t.Errorf("pages gave %q; want the 5 entries once each", all)
	}
	huge := servertest.Decode[api.SearchResults](t, ts.Do(http.MethodGet, searchPath("paged", "limit", "99999999999"), ts.Admin, nil))
	if len(huge.Results) != 5 {
		t.Errorf("limit over the maximum: %d results", len(huge.Results))
	}

	for _, tt := range []struct {
		name, path, token string
		status            int
	}{
		{"no token", searchPath("pool"), "", http.StatusUnauthorized},
		{"unreadable repo", searchPath("pool", "repo", "other/ops"), reader, http.StatusForbidden},
		{"unreadable unknown repo", searchPath("pool", "repo", "zeta/none"), reader, http.StatusForbidden},
		{"invalid repo", searchPath("pool", "repo", "../x"), ts.Admin, http.StatusBadRequest},
		{"limit not a number", searchPath("pool", "limit", "ten"), ts.Admin, http.StatusBadRequest},
		{"bad cursor", searchPath("pool", "cursor", "!!"), ts.Admin, http.StatusBadRequest},
		{"forged cursor", searchPath("pool", "cursor", "AQoAAAAAAAAAAA"), ts.Admin, http.StatusBadRequest},
		{"no q", api.PathSearch, ts.Admin, http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.Do(http.MethodGet, tt.path, tt.token, nil)
			if r.Status != tt.status {
				t.Errorf("GET %s = %d %s; want %d", tt.path, r.Status, r.Body, tt.status)
			}
			r.ErrorBody(t)
		})
	}
}

// TestSearchHostile: whatever q holds, the answer is 200 or a 400 that
// says what is wrong, never a 500; nothing in q is store syntax.
func TestSearchHostile(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "near and or not col x star d 2 value"}, nil, http.StatusOK)
	for _, tt := range []struct {
		q      string
		status int
		found  bool   // a.md is found
		msg    string // part of the 400's message
	}{
		{`"`, 400, false, "no word"},
		{``, 400, false, "no word"},
		{`***`, 400, false, "no word"},
		{"\x00\x01\x1f\x7f", 400, false, "no word"},
		{`"near and`, 200, true, ""},
		{`NEAR(near, value)`, 200, false, ""},
		{`near AND value`, 200, true, ""},
		{`near OR zzz`, 200, false, ""},
		{`NOT near`, 200, true, ""},
		{`-near`, 200, true, ""},
		{`near*`, 200, true, ""},
		{`^near`, 200, true, ""},
		{`col:x`, 200, true, ""},
		{`{title}:near`, 200, false, ""},
		{`d^2`, 200, true, ""},
		{`'; DROP TABLE entries; --`, 200, false, ""},
		{`value::text & near | !x`, 200, false, ""},
		{"near\x00and", 200, true, ""}, // one term: the phrase of its parts
		{"near\x00value", 200, false, ""},
		{strings.Repeat("near ", 2048), 400, false, "longer than"},
		{strings.Repeat("w", 10240), 400, false, "longer than"},
		{"a b c d e f g h i j k l m n o p q", 400, false, "more than 16 terms"},
		{"bad \xff", 400, false, "UTF-8"},
	} {
		r := ts.Do(http.MethodGet, searchPath(tt.q), ts.Admin, nil)
		if r.Status != tt.status {
			t.Errorf("q=%.40q: %d %s; want %d", tt.q, r.Status, r.Body, tt.status)
			continue
		}
		if r.Status == 400 {
			if e := r.ErrorBody(t); !strings.Contains(e.Message, tt.msg) {
				t.Errorf("q=%.40q: message %q; want it to say %q", tt.q, e.Message, tt.msg)
			}
			continue
		}
		if got := servertest.Decode[api.SearchResults](t, r); (len(got.Results) == 1) != tt.found {
			t.Errorf("q=%.40q: results %+v; found want %v", tt.q, got.Results, tt.found)
		}
	}
}
