package searchtext

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// snippetOfWholeText is SnippetOf reading every word of the content: the
// oracle SnippetOf's early stop must agree with.
func snippetOfWholeText(content string, terms []Term) Snippet {
	return snippetOf(content, terms, func(text string, terms []Term) (Snippet, bool) {
		var words []word
		eachToken(text, 0, func(raw string, s int, folded string, plain bool) bool {
			words = append(words, word{normalized(raw, folded), s, s + len(raw), plain})
			return true
		})
		return snippetOfWords(text, words, terms)
	})
}

// snippetVocabulary makes texts where terms meet often, overlap, run
// into each other as phrases and sit in whitespace runs of any length.
var snippetVocabulary = []string{"a", "b", "c", "deploy", "Deploy", "café", "CAFE", "x_y", "ü", "日本",
	" ", "  ", "\n\n", "\t", strings.Repeat(" ", 300), ".", "—", "\x00", "\xff", "RetryPush"}

func randomSnippetCase(r *rand.Rand) (string, []Term) {
	if r.IntN(2) == 0 {
		return denseSnippetCase(r)
	}
	var b strings.Builder
	for range r.IntN(400) {
		b.WriteString(snippetVocabulary[r.IntN(len(snippetVocabulary))])
		if r.IntN(3) > 0 {
			b.WriteByte(' ')
		}
	}
	var q strings.Builder
	for range 1 + r.IntN(3) {
		if r.IntN(2) == 0 {
			q.WriteString(`"` + snippetVocabulary[r.IntN(4)] + " " + snippetVocabulary[r.IntN(4)] + `" `)
		} else {
			q.WriteString(snippetVocabulary[r.IntN(10)] + " ")
		}
	}
	terms, _ := Parse(q.String())
	return b.String(), terms
}

// denseSnippetCase makes a text that is nearly all word runes (long
// words, one space between them), starting with a match, so that the
// excerpt ends where SnippetOf's count of word runes does, and with a
// phrase of the query often across that end.
func denseSnippetCase(r *rand.Rand) (string, []Term) {
	long := []string{strings.Repeat("q", 1+r.IntN(30)), strings.Repeat("é", 1+r.IntN(30)), "b", "c"}
	words := []string{"a"}
	for len(words) < 10+r.IntN(60) {
		words = append(words, long[r.IntN(len(long))])
	}
	terms, _ := Parse(`a "b c" "c b c"`)
	return strings.Join(words, " "), terms
}

// TestSnippetStopsEarlyAsIfWhole: the excerpt read up to its reach is
// the excerpt of the whole text, on texts built to put matches at the
// excerpt's end, phrases across it and whitespace runs that stretch it.
func TestSnippetStopsEarlyAsIfWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		content, terms := randomSnippetCase(r)
		if got, want := SnippetOf(content, terms), snippetOfWholeText(content, terms); !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: terms %q in %q:\n got %+v\nwant %+v", i, terms, content, got, want)
		}
	}
}

func FuzzSnippetStopsEarlyAsIfWhole(f *testing.F) {
	f.Add("Set pool_max_conns to 8 for the Make release job.", `pool_max_conns "make release"`)
	f.Add(strings.Repeat("a b ", 200)+"c", `"b c" a`)
	f.Fuzz(func(t *testing.T, content, query string) {
		terms, err := Parse(query)
		if err != nil {
			return
		}
		if got, want := SnippetOf(content, terms), snippetOfWholeText(content, terms); !reflect.DeepEqual(got, want) {
			t.Fatalf("terms %q in %q:\n got %+v\nwant %+v", terms, content, got, want)
		}
	})
}

// TestSnippetStartsWhereAMatchCan: reading starts at the first place a
// term's first word could stand, and a word past ASCII that folds into a
// term (full-width letters, an accent) or a term inside a longer word
// found as a substring changes nothing: the snippet is the whole text's,
// and its first match the first there is.
func TestSnippetStartsWhereAMatchCan(t *testing.T) {
	for _, c := range []struct {
		content, query, first string
	}{
		{"xx ＤＥＰＬＯＹ yy deploy", "deploy", "ＤＥＰＬＯＹ"},
		{"the caféteria, then Déploy and deploy", "deploy", "Déploy"},
		{"RetryPush then push", "push", "push"},
		{"no match at all in here", "zyzzyva", ""},
		{strings.Repeat("filler words ", 100) + "Make Release now", `"make release"`, "Make Release"},
		{"pool max then pool_max_conns", "pool_max_conns", "pool_max_conns"},
	} {
		terms, err := Parse(c.query)
		if err != nil {
			t.Fatal(err)
		}
		got := SnippetOf(c.content, terms)
		if want := snippetOfWholeText(c.content, terms); !reflect.DeepEqual(got, want) {
			t.Errorf("%q in %q:\n got %+v\nwant %+v", c.query, c.content, got, want)
		}
		first := ""
		if len(got.Matches) > 0 {
			r := []rune(got.Text)
			first = string(r[got.Matches[0][0]:got.Matches[0][1]])
		}
		if first != c.first {
			t.Errorf("%q in %q: first match %q, want %q", c.query, c.content, first, c.first)
		}
	}
}

// BenchmarkSnippetOf: one search result's snippet, a 2 KB note with its
// first match near the top, as most are; "whole text" reads every word.
func BenchmarkSnippetOf(b *testing.B) {
	filler := strings.Repeat("The pool_max_conns setting of the database client decides the queue; retry with RetryPush. ", 22)
	top := "Deploys go out with make release after the canary. " + filler
	deep := filler + "Deploys go out with make release after the canary."
	terms, _ := Parse("canary release")
	for name, snippet := range map[string]func(string, []Term) Snippet{"early stop": SnippetOf, "whole text": snippetOfWholeText} {
		for where, note := range map[string]string{"top": top, "deep": deep} {
			b.Run(name+"/"+where, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					snippet(note, terms)
				}
			})
		}
	}
}

// TestSnippetBoundedByChainedMatches: matches one after the other (a text
// of the searched word only) do not stretch the excerpt: the match open at
// SnippetRunes is finished, none starts after it. Both stop points (early,
// whole text) agree.
func TestSnippetBoundedByChainedMatches(t *testing.T) {
	content := strings.Repeat("deploy ", 300)
	terms, _ := Parse("deploy")
	for name, snippet := range map[string]func(string, []Term) Snippet{"early stop": SnippetOf, "whole text": snippetOfWholeText} {
		s := snippet(content, terms)
		if n := utf8.RuneCountInString(s.Text); n > SnippetRunes+len("deploy")+2 {
			t.Errorf("%s: a snippet of %d code points, %d matches, for a text of one word repeated; want about %d", name, n, len(s.Matches), SnippetRunes)
		}
	}
}

// TestSnippetNeverShowsFrontmatter: a snippet comes from the body around
// its first match, else from the description around its first match, else
// from the top of the body; the frontmatter's syntax (markers, keys) never
// shows, however the block is written.
func TestSnippetNeverShowsFrontmatter(t *testing.T) {
	for _, c := range []struct {
		name, content, query, want string
	}{
		{"match in the body", "---\nname: db\ndescription: Postgres notes\n---\n\n# DB\nWe deploy the database on Fridays.\n",
			"deploy", "# DB We deploy the database on Fridays."},
		{"match in the name only", "---\nname: Deploys\ndescription: how we ship\n---\nRun make release.\n",
			"deploy", "Run make release."},
		{"match in the description only", "---\nname: db\ndescription: Deploying the database\n---\nRun make release.\n",
			"deploy", "Deploying the database"},
		{"empty body", "---\nname: db\ndescription: Postgres notes\n---\n", "zyzzyva", "Postgres notes"},
		{"CRLF", "---\r\nname: db\r\ndescription: Postgres notes\r\n---\r\nWe deploy on Fridays.\r\n", "db", "We deploy on Fridays."},
		{"byte order mark", "\uFEFF---\nname: db\ndescription: d\n---\nWe deploy.\n", "db", "We deploy."},
		{"byte order mark, no frontmatter", "\uFEFFWe deploy.\n", "deploy", "We deploy."},
		{"unterminated", "---\nname: db\ndescription: Postgres notes\n# DB\nWe deploy on Fridays.\n", "db", "# DB We deploy on Fridays."},
		{"unterminated, match in a field", "---\nname: db\ndescription: deploy notes\n\nWe ship on Fridays.\n", "deploy", "We ship on Fridays."},
		{"--- inside the body", "---\nname: db\n---\nFirst part.\n\n---\nname: fake\n---\nWe deploy here.\n", "deploy",
			"First part. --- name: fake --- We deploy here."},
		{"--- and a colon in a value", "---\nname: db\ndescription: a --- b: c\n---\nBody text.\n", "c", "a --- b: c"},
	} {
		t.Run(c.name, func(t *testing.T) {
			terms, err := Parse(c.query)
			if err != nil {
				t.Fatal(err)
			}
			s := SnippetOf(c.content, terms)
			if s.Text != c.want {
				t.Errorf("snippet %q, want %q", s.Text, c.want)
			}
			if want := snippetOfWholeText(c.content, terms); !reflect.DeepEqual(s, want) {
				t.Errorf("early stop %+v, whole text %+v", s, want)
			}
		})
	}
}

// TestSnippetMarksStemmedMatches: a word of prose matches a query word of
// the same stem; an identifier's part matches it as typed only.
func TestSnippetMarksStemmedMatches(t *testing.T) {
	for _, c := range []struct {
		content, query string
		want           []string
	}{
		{"Deploys went out; deploying again after deployed.", "deploy", []string{"Deploys", "deploying", "deployed"}},
		{"see deploys.md and deploys", "deploys", []string{"deploys", "deploys"}},
		{"see deploys.md and deploys", "deploy", []string{"deploys"}},
		{"pool_max_conns then conns then conn", "conns", []string{"conns", "conns", "conn"}},
		{"pool_max_conns then conn", "conn", []string{"conn"}},
		{"the Make Releases job", `"make release"`, []string{"Make Releases"}},
	} {
		terms, err := Parse(c.query)
		if err != nil {
			t.Fatal(err)
		}
		s := SnippetOf(c.content, terms)
		var got []string
		r := []rune(s.Text)
		for _, m := range s.Matches {
			got = append(got, string(r[m[0]:m[1]]))
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q in %q: matches %q, want %q", c.query, c.content, got, c.want)
		}
	}
}
