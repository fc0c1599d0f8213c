package webui_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/teammem/teammem/testkit/servertest"
)

// TestUISearchUsesTheIndex: the search box finds through the search index
// (words ANDed anywhere in the entry, case and accents folded, identifiers
// by their parts), in one repository or every readable one, and never
// shows anything of a repository the caller cannot read.
func TestUISearchUsesTheIndex(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{
		"db.md":        "# Database\n\nThe pool_max_conns setting lives in server/postgres/write.go.\n\nCafé crème is served at noon.\n",
		"gone.md":      "pool_max_conns was tuned here once\n",
		"unrelated.md": "nothing to see\n",
	}, nil, http.StatusOK)
	ts.Put("acme/api", nil, []string{"gone.md"}, http.StatusOK)
	ts.Put("acme/web", map[string]string{"pool.md": "the web tier sets pool_max_conns too\n"}, nil, http.StatusOK)
	ts.Put("acme/secret", map[string]string{"plan.md": "pool_max_conns in the secret plan, codename bluebird\n"}, nil, http.StatusOK)

	b := ts.browser(t)
	b.signIn(ts.Token("ana", "acme/api:read", "acme/web:read"))

	// Words anywhere in the entry, not a substring: "postgres noon" is in
	// db.md but not as one string; "CAFE" matches "Café".
	for _, q := range []string{"postgres noon", "CAFE", "pool_max_conns", "write.go", "Database"} {
		p := b.get("/ui/r/acme/api/~search?q="+url.QueryEscape(q)).must(t, http.StatusOK)
		if !strings.Contains(p.Body, `key=db.md`) || !strings.Contains(p.Body, "<mark>") {
			t.Errorf("search %q in acme/api does not find db.md with a marked snippet:\n%s", q, p.Body)
		}
		if strings.Contains(p.Body, "gone.md") || strings.Contains(p.Body, "acme/web") {
			t.Errorf("search %q in acme/api shows a deleted entry or another repository:\n%s", q, p.Body)
		}
	}

	all := b.get("/ui/search?q=pool_max_conns").must(t, http.StatusOK)
	for _, want := range []string{"acme/api", "key=db.md", "acme/web", "key=pool.md"} {
		if !strings.Contains(all.Body, want) {
			t.Errorf("search across repositories lacks %q:\n%s", want, all.Body)
		}
	}
	for _, never := range []string{"acme/secret", "plan.md", "bluebird", "secret plan"} {
		if strings.Contains(all.Body, never) {
			t.Errorf("search across repositories shows %q of a repository ana cannot read:\n%s", never, all.Body)
		}
	}
	if p := b.get("/ui/search?q=bluebird").must(t, http.StatusOK); !strings.Contains(p.Body, "No live entry matches") {
		t.Errorf("a word only an unreadable repository holds is found:\n%s", p.Body)
	}
	refused := b.get("/ui/r/acme/secret/~search?q=pool_max_conns").must(t, http.StatusForbidden)
	if strings.Contains(refused.Body, "plan.md") || strings.Contains(refused.Body, "bluebird") {
		t.Errorf("a refused search shows the repository's content:\n%s", refused.Body)
	}
	if missing := b.get("/ui/r/acme/nothing/~search?q=pool").must(t, http.StatusForbidden); missing.Body != refused.Body {
		t.Errorf("a missing repository's search page differs from a refused one's")
	}
	// The home page and every other page offer the search across
	// repositories; a repository's pages search the repository.
	if home := b.get("/ui/").must(t, http.StatusOK); !strings.Contains(home.Body, `action="/ui/search"`) {
		t.Errorf("the home page has no search box")
	}
}

var moreRE = regexp.MustCompile(`<a href="([^"]+)">More results</a>`)

// TestUISearchPages: results come a page at a time, each page's link
// carrying the index's cursor; a cursor of another query is refused.
func TestUISearchPages(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	entries := map[string]string{}
	for i := range 25 {
		entries[fmt.Sprintf("note-%02d.md", i)] = fmt.Sprintf("runbook step %d\n", i)
	}
	ts.Put("acme/api", entries, nil, http.StatusOK)
	b := ts.browser(t)
	b.signIn(ts.Admin)
	first := b.get("/ui/r/acme/api/~search?q=runbook").must(t, http.StatusOK)
	m := moreRE.FindStringSubmatch(first.Body)
	if m == nil || strings.Count(first.Body, "<li>") != 20 {
		t.Fatalf("first page: %d results, more link %v; want 20 and a link", strings.Count(first.Body, "<li>"), m)
	}
	next := html.UnescapeString(m[1])
	second := b.get(next).must(t, http.StatusOK)
	if n := strings.Count(second.Body, "<li>"); n != 5 || moreRE.MatchString(second.Body) {
		t.Errorf("second page: %d results (more link %v); want the last 5", n, moreRE.MatchString(second.Body))
	}
	seen := map[string]bool{}
	for _, p := range []page{first, second} {
		for _, k := range regexp.MustCompile(`key=(note-\d\d\.md)`).FindAllStringSubmatch(p.Body, -1) {
			seen[k[1]] = true
		}
	}
	if len(seen) != 25 {
		t.Errorf("the two pages show %d distinct entries; want 25", len(seen))
	}
	u, _ := url.Parse(next)
	cursor := u.Query().Get("cursor")
	p := b.get("/ui/r/acme/api/~search?q=step&cursor="+url.QueryEscape(cursor)).must(t, http.StatusBadRequest)
	if !strings.Contains(p.Body, "This search cannot run") || !strings.Contains(p.Body, "cursor") {
		t.Errorf("a cursor of another query: %s", p.Body)
	}
}

// TestUISearchHostileQueries: whatever is typed, the page answers 200 or
// a 400 that says why, with the form keeping the text (escaped); never a
// 500, never store syntax.
func TestUISearchHostileQueries(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "alpha beta <script>alert(1)</script> NEAR the end\n"}, nil, http.StatusOK)
	b := ts.browser(t)
	b.signIn(ts.Admin)
	for _, q := range []string{`"`, `""`, `"alpha`, `*`, `alpha*`, `NEAR(alpha beta)`, `alpha AND OR NOT beta`, `-alpha`, `^alpha`,
		`a:b`, `alpha:`, `(`, `)`, `{alpha}`, `'; DROP TABLE entries; --`, "alpha\x00beta", "\x01\x02\x7f", "\u202e\u200b",
		`<script>alert(1)</script>`, strings.Repeat("alpha ", 17), strings.Repeat("x", 10<<10), "\xff\xfe", `%`, `_`, `\`, `NEAR`, `NOT`,
		"   ", "!!!", "\u00a0"} {
		for _, path := range []string{"/ui/r/acme/api/~search", "/ui/search"} {
			p := b.get(path + "?q=" + url.QueryEscape(q))
			switch p.Status {
			case http.StatusOK:
			case http.StatusBadRequest:
				if !strings.Contains(p.Body, "This search cannot run") {
					t.Errorf("%s %.40q: 400 without a reason:\n%.600s", path, q, p.Body)
				}
			default:
				t.Errorf("%s %.40q: status %d:\n%.600s", path, q, p.Status, p.Body)
			}
			if strings.Contains(p.Body, "<script>alert") {
				t.Errorf("%s %.40q: unescaped markup on the page", path, q)
			}
		}
	}
	if p := b.get("/ui/search?q="+url.QueryEscape(`alpha*`)).must(t, http.StatusOK); !strings.Contains(p.Body, "key=a.md") {
		t.Errorf("`alpha*` (the star an ordinary separator) does not find a.md")
	}
	b.get("/ui/search?q=alpha&cursor=forged").must(t, http.StatusBadRequest)
}
