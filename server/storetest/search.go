package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/searchtext"
)

// search runs q (as a person types it) over repos (none: all) and returns
// "repo:key" of each hit in order.
func search(t *testing.T, s server.Store, q string, repos ...string) []string {
	t.Helper()
	var out []string
	for _, h := range searchHits(t, s, q, 0, repos...) {
		out = append(out, h.Repo+":"+h.Key)
	}
	return out
}

// SearchKeys runs q (as a person types it) in repo and returns the key of
// each hit in order.
func SearchKeys(t *testing.T, s server.Store, repo, q string) []string {
	t.Helper()
	var keys []string
	for _, h := range searchHits(t, s, q, 0, repo) {
		keys = append(keys, h.Key)
	}
	return keys
}

func searchHits(t *testing.T, s server.Store, q string, offset int, repos ...string) []server.SearchHit {
	t.Helper()
	return searchPage(t, s, q, len(repos) == 0, repos, offset)
}

// parse is searchtext.Parse(q), failing t on an error.
func parse(t *testing.T, q string) []server.SearchTerm {
	t.Helper()
	terms, err := searchtext.Parse(q)
	if err != nil {
		t.Fatalf("Parse(%q): %v", q, err)
	}
	return terms
}

// searchPage runs q over repos, with AllRepos as given, from offset.
func searchPage(t *testing.T, s server.Store, q string, all bool, repos []string, offset int) []server.SearchHit {
	t.Helper()
	hits, err := s.Search(context.Background(), server.SearchRequest{Terms: parse(t, q), Repos: repos, AllRepos: all,
		Limit: 50, Offset: offset})
	if err != nil {
		t.Fatalf("Search(%q): %v", q, err)
	}
	return hits
}

// pagedSearch runs q over every repository in pages of limit hits, from
// the first until a page comes back short, and returns "repo:key" of each
// hit in order.
func pagedSearch(t *testing.T, s server.Store, q string, limit int) []string {
	t.Helper()
	terms := parse(t, q)
	var out []string
	for off := 0; ; off += limit {
		hits, err := s.Search(context.Background(), server.SearchRequest{Terms: terms, AllRepos: true, Limit: limit, Offset: off})
		if err != nil {
			t.Fatalf("Search(%q) from %d: %v", q, off, err)
		}
		for _, h := range hits {
			out = append(out, h.Repo+":"+h.Key)
		}
		if len(hits) < limit {
			return out
		}
	}
}

func wantHits(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("hits %q, want %q", got, want)
	}
}

func wantSameHits(t *testing.T, got []string, want ...string) {
	t.Helper()
	g, w := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if !slices.Equal(g, w) && !(len(g) == 0 && len(w) == 0) {
		t.Errorf("hits %q, want (in any order) %q", got, want)
	}
}

// testSearchWords: words are ANDed, case and accents do not matter,
// phrases keep order, identifiers and paths are found whole and by parts.
func testSearchWords(t *testing.T, s server.Store) {
	apply(t, s, write("acme/web", at(0), contents{
		"db.md":      "Set pool_max_conns to 16 in server/postgres/write.go before the Café migration.",
		"release.md": "Run make release from a clean tree; the release notes come from CHANGELOG.md.",
		"other.md":   "The pool is closed; max out the conns later. Release the make target.",
	}))
	wantSameHits(t, search(t, s, "pool"), "acme/web:db.md", "acme/web:other.md")
	wantHits(t, search(t, s, "pool_max_conns"), "acme/web:db.md")
	wantHits(t, search(t, s, "POOL_MAX_CONNS"), "acme/web:db.md")
	wantHits(t, search(t, s, "server/postgres/write.go"), "acme/web:db.md")
	wantSameHits(t, search(t, s, "postgres"), "acme/web:db.md")
	wantHits(t, search(t, s, "write.go"), "acme/web:db.md")
	wantHits(t, search(t, s, "cafe"), "acme/web:db.md")
	wantHits(t, search(t, s, "CAFÉ migration"), "acme/web:db.md")
	wantHits(t, search(t, s, `"make release"`), "acme/web:release.md")
	wantSameHits(t, search(t, s, "make release"), "acme/web:release.md", "acme/web:other.md")
	wantHits(t, search(t, s, "pool release"), "acme/web:other.md")
	wantHits(t, search(t, s, "pool nowhere"))
	wantHits(t, search(t, s, "changelog.md"), "acme/web:release.md")
	// camelCase: whole, in one piece, by its parts and as their phrase.
	apply(t, s, write("acme/web", at(1), contents{"retry.md": "Call RetryPush before MySQL starts."}))
	for _, q := range []string{"RetryPush", "retrypush", "retry push", `"retry push"`, "push", "mysql", "MySQL", "sql"} {
		wantHits(t, search(t, s, q), "acme/web:retry.md")
		wantHits(t, search(t, s, q, "acme/web"), "acme/web:retry.md")
	}
	// In one repository too (SQLite looks titles up by their words behind
	// the repository's token): a phrase in a title is found with its words
	// adjacent only, a word that is not ASCII between them counting.
	apply(t, s, write("acme/web", at(2), contents{
		"ab.md": "---\nname: alpha 日本 beta\n---\nnothing here",
		"gd.md": "---\nname: Gamma délta\n---\nnothing here",
	}))
	wantHits(t, search(t, s, `"alpha beta"`, "acme/web"))
	wantHits(t, search(t, s, `"alpha beta"`))
	wantHits(t, search(t, s, "alpha beta", "acme/web"), "acme/web:ab.md")
	wantHits(t, search(t, s, `"alpha 日本 beta"`, "acme/web"), "acme/web:ab.md")
	wantHits(t, search(t, s, "日本", "acme/web"), "acme/web:ab.md")
	wantHits(t, search(t, s, `"gamma delta"`, "acme/web"), "acme/web:gd.md")
	wantHits(t, search(t, s, "GAMMA Délta", "acme/web"), "acme/web:gd.md")
	wantHits(t, search(t, s, "pool_max_conns", "acme/web"), "acme/web:db.md")
	wantHits(t, search(t, s, "CAFÉ migration", "acme/web"), "acme/web:db.md")
	// A title holding an ASCII and a non-ASCII term ranks above a newer
	// body match.
	apply(t, s, write("acme/web", at(3), contents{"zz.md": "alpha and 日本 in the body"}))
	wantHits(t, search(t, s, "alpha 日本", "acme/web"), "acme/web:ab.md", "acme/web:zz.md")
	wantHits(t, search(t, s, "alpha 日本"), "acme/web:ab.md", "acme/web:zz.md")
}

// testSearchLive: a deleted key is not found, an edited one only by its
// new text, and a hit carries the entry's current version and content.
func testSearchLive(t *testing.T, s server.Store) {
	apply(t, s, write("acme/web", at(0), contents{"a.md": "alpha bravo", "b.md": "alpha charlie"}))
	res := apply(t, s, write("acme/web", at(1), contents{"a.md": "delta echo"}, "b.md"))
	wantHits(t, search(t, s, "alpha"))
	wantHits(t, search(t, s, "bravo"))
	wantHits(t, search(t, s, "charlie"))
	hits := searchHits(t, s, "echo", 0)
	if len(hits) != 1 || hits[0].Key != "a.md" || hits[0].Version != res.State.Version || hits[0].Content != "delta echo" {
		t.Fatalf("hits %+v, want a.md at version %d with its new content", hits, res.State.Version)
	}
	apply(t, s, write("acme/web", at(2), contents{"b.md": "alpha again"}))
	wantHits(t, search(t, s, "alpha"), "acme/web:b.md")
	wantHits(t, search(t, s, "charlie"))
}

// testSearchRanking: a match in the key's name, its frontmatter name or
// description, or the index line linking it ranks above a body-only one.
func testSearchRanking(t *testing.T, s server.Store) {
	body := strings.Repeat("Some words about the deploy pipeline and other things. ", 5)
	apply(t, s, write("acme/web", at(0), contents{
		"notes/body.md":     body + "zebra zebra zebra lorem zebra.",
		"notes/zebra.md":    body,
		"notes/fm.md":       "---\nname: Quagga\ndescription: how the quagga gets fed\n---\n" + body,
		"notes/plain.md":    body + "quagga quagga quagga quagga.",
		"notes/linked.md":   body,
		"notes/unlinked.md": body + "okapi okapi okapi okapi.",
		"MEMORY.md":         "# Index\n- [Linked](notes/linked.md) — the okapi runbook\n",
	}))
	wantHits(t, search(t, s, "zebra"), "acme/web:notes/zebra.md", "acme/web:notes/body.md")
	wantHits(t, search(t, s, "quagga"), "acme/web:notes/fm.md", "acme/web:notes/plain.md")
	got := search(t, s, "okapi")
	if len(got) == 0 || got[0] != "acme/web:notes/linked.md" {
		t.Errorf("okapi: hits %q, want notes/linked.md first", got)
	}
	wantSameHits(t, got, "acme/web:notes/linked.md", "acme/web:notes/unlinked.md", "acme/web:MEMORY.md")
	// The index changes: the old line no longer finds the entry, the new
	// one does; a deleted index finds nothing.
	apply(t, s, write("acme/web", at(1), contents{"MEMORY.md": "# Index\n- [Plain](notes/plain.md) — capybara\n"}))
	wantHits(t, search(t, s, "okapi"), "acme/web:notes/unlinked.md")
	wantHits(t, search(t, s, "capybara"), "acme/web:notes/plain.md", "acme/web:MEMORY.md")
	apply(t, s, write("acme/web", at(2), nil, "MEMORY.md"))
	wantHits(t, search(t, s, "capybara"))
	// A link to a key deleted later finds nothing.
	apply(t, s, write("acme/web", at(3), contents{"MEMORY.md": "- [Gone](gone.md) tapir\n", "gone.md": "x"}))
	apply(t, s, write("acme/web", at(4), nil, "gone.md"))
	wantHits(t, search(t, s, "tapir"), "acme/web:MEMORY.md")
}

// testSearchRecency: in each tier the entry written last comes first
// (entries written at the same time by repository and key); a name, title
// or index-line match stays above newer body matches; pages cut the same
// order.
func testSearchRecency(t *testing.T, s server.Store) {
	apply(t, s, write("acme/web", at(0), contents{"walrus.md": "notes on feeding", "a.md": "the walrus", "b.md": "the walrus"}))
	apply(t, s, write("acme/web", at(1), contents{"c.md": "a walrus too"}))
	apply(t, s, write("acme/api", at(2), contents{"d.md": "walrus"}))
	wantHits(t, search(t, s, "walrus"), "acme/web:walrus.md", "acme/api:d.md", "acme/web:c.md", "acme/web:a.md", "acme/web:b.md")
	apply(t, s, write("acme/web", at(3), contents{"b.md": "the walrus again"}))
	wantHits(t, search(t, s, "walrus"), "acme/web:walrus.md", "acme/web:b.md", "acme/api:d.md", "acme/web:c.md", "acme/web:a.md")
	wantHits(t, search(t, s, "walrus", "acme/web"), "acme/web:walrus.md", "acme/web:b.md", "acme/web:c.md", "acme/web:a.md")
	apply(t, s, write("acme/web", at(4), contents{"MEMORY.md": "- [A](a.md) — walrus facts\n"}))
	all := []string{"acme/web:walrus.md", "acme/web:a.md", "acme/web:MEMORY.md", "acme/web:b.md", "acme/api:d.md", "acme/web:c.md"}
	wantHits(t, search(t, s, "walrus"), all...)
	wantHits(t, pagedSearch(t, s, "walrus", 2), all...)
}

// testSearchRepos: only the repositories asked for are searched; entries
// written at the same time are ordered by repository and key and pages
// follow each other.
func testSearchRepos(t *testing.T, s server.Store) {
	for _, r := range []string{"acme/a", "acme/b", "other/c"} {
		apply(t, s, write(r, at(0), contents{"x.md": "shared word", "y.md": "shared word"}))
	}
	wantHits(t, search(t, s, "shared", "acme/b"), "acme/b:x.md", "acme/b:y.md")
	wantHits(t, search(t, s, "shared", "acme/a", "other/c"), "acme/a:x.md", "acme/a:y.md", "other/c:x.md", "other/c:y.md")
	wantHits(t, search(t, s, "shared", "never/written"))
	all := search(t, s, "shared")
	wantHits(t, all, "acme/a:x.md", "acme/a:y.md", "acme/b:x.md", "acme/b:y.md", "other/c:x.md", "other/c:y.md")
	wantHits(t, pagedSearch(t, s, "shared", 4), all...)
}

// testSearchHostile: what people type is never store syntax; every query
// that parses is answered without error.
func testSearchHostile(t *testing.T, s server.Store) {
	apply(t, s, write("acme/web", at(0), contents{"a.md": "near and or not col x star quote d 2 value"}))
	for _, q := range []string{
		`"`, `""""`, `"near`, `NEAR(a b)`, `NEAR/2`, `a AND b`, `a OR b`, `NOT a`, `-a`, `a*`, `*`, `^a`,
		`col:x`, `{title}: x`, `scope:x`, `title : quote`, `(a`, `a)`, `'a'`, `\"a\"`, `a\x00b`, "x\x01\x7f",
		`%`, `_`, `'; DROP TABLE entries; --`, `$1`, `?`, `:1`, `@a`, `d^2`, `value::text`, `a & b | !c <-> d`,
		`'x':*`, `x:A`, `\`, `\\`, strings.Repeat("ab ", 5), strings.Repeat("é", 100),
	} {
		terms, err := searchtext.Parse(q)
		if err != nil {
			continue // refused before the store, with a message (see searchtext)
		}
		if _, err := s.Search(context.Background(), server.SearchRequest{Terms: terms, AllRepos: true, Limit: 10}); err != nil {
			t.Errorf("Search(%q): %v", q, err)
		}
		if _, err := s.Search(context.Background(), server.SearchRequest{Terms: terms, Repos: []string{"acme/web"}, Limit: 10}); err != nil {
			t.Errorf("Search(%q) in one repository: %v", q, err)
		}
	}
	wantHits(t, search(t, s, `NEAR and OR`), "acme/web:a.md")
	wantHits(t, search(t, s, `col:x`), "acme/web:a.md")
}

// testSearchCandidates: a query matching more entries than a store ranks
// (server.SearchCandidates) pages through at most that many, each once.
func testSearchCandidates(t *testing.T, s server.Store) {
	c := contents{}
	for i := range server.SearchCandidates + 30 {
		c[fmt.Sprintf("n%04d.md", i)] = fmt.Sprintf("note %d about the common word", i)
	}
	apply(t, s, write("acme/web", at(0), c))
	seen := map[string]bool{}
	for off := 0; ; off += 50 {
		hits := searchHits(t, s, "common", off)
		for _, h := range hits {
			if seen[h.Key] {
				t.Fatalf("%s found twice", h.Key)
			}
			seen[h.Key] = true
		}
		if len(hits) < 50 {
			break
		}
	}
	if len(seen) != server.SearchCandidates {
		t.Errorf("paged through %d entries, want the %d candidates", len(seen), server.SearchCandidates)
	}
	// A narrower query finds any of them.
	wantHits(t, search(t, s, "common 3"), "acme/web:n0003.md")
}

// testSearchScopeForged: entries of another repository holding a
// repository's scope token as a word (a teammate who can write there),
// alone or glued to a word, in their body or their title (their key and
// frontmatter name), even behind a letter newer than FTS5's Unicode
// tables (U+19B0, a letter to Go, a separator to its tokeniser), do not take
// the results of a search of that repository.
func testSearchScopeForged(t *testing.T, s server.Store) {
	web := searchtext.Scope("acme/web")
	c := contents{}
	for i := range server.SearchCandidates + 10 {
		c[fmt.Sprintf("n%04d.md", i)] = web + " common"
		c[fmt.Sprintf("t%04d-%scommon.md", i, web)] = fmt.Sprintf("---\nname: x\u19b0%[1]scommon %[1]scommon\n---\n%[1]scommon", web)
	}
	apply(t, s, write("other/forger", at(0), c))
	apply(t, s, write("acme/web", at(1), contents{"real.md": "the common word", "common-title.md": "a title"}))
	wantHits(t, search(t, s, "common", "acme/web"), "acme/web:common-title.md", "acme/web:real.md")
}
