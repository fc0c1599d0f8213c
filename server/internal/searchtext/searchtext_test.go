package searchtext

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWords(t *testing.T) {
	cases := map[string]string{
		"Café au LAIT":                                 "cafe au lait",
		"pool_max_conns=8":                             "pool max conns 8",
		"server/postgres/write.go":                     "server postgres write go",
		"make release; NEAR(a b)":                      "make release near a b",
		"Ünïcödé naïve résumé":                         "unicode naive resume",
		"决策记录 décision\x00\x1f x":                      "决策记录 decision x",
		"ﬁle ²":                                        "file 2",
		"a" + strings.Repeat("b", MaxWordBytes) + " c": "c",
		// a word shaped like a scope token is left out (see Scope)
		"x " + Scope("acme/web") + " y R0123456789ABCDEF0 r0123456789abcdeg": "x y r0123456789abcdef0 r0123456789abcdeg",
	}
	for in, want := range cases {
		if got := Normalize(in, 0); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	cases := []struct {
		q    string
		want []Term
		err  error
	}{
		{`make release`, []Term{{"make"}, {"release"}}, nil},
		{`"make release" pool_max_conns`, []Term{{"make", "release"}, {"pool", "max", "conns"}}, nil},
		{`NEAR(a, b) AND -c OR NOT d^2 col:x *`, []Term{{"near", "a"}, {"b"}, {"and"}, {"c"}, {"or"}, {"not"}, {"d", "2"}, {"col", "x"}}, nil},
		{`"unterminated phrase`, []Term{{"unterminated", "phrase"}}, nil},
		{`Go go GO`, []Term{{"go"}}, nil},
		{``, nil, ErrEmpty},
		{`*** "" - ^ :`, nil, ErrEmpty},
		{strings.Repeat("a ", 600), nil, ErrTooLong},
		{strings.Repeat("a", 60) + " " + strings.Repeat("w ", 0) + words(20), nil, ErrTooMany},
		{"bad \xff utf8", nil, ErrBadUTF8},
	}
	for _, c := range cases {
		got, err := Parse(c.q)
		if err != c.err || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%.40q) = %q, %v; want %q, %v", c.q, got, err, c.want, c.err)
		}
	}
}

func words(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(" w")
		b.WriteByte(byte('a' + i))
	}
	return b.String()
}

func TestCamelParts(t *testing.T) {
	cases := map[string]string{
		"use RetryPush and MySQL":               "retry push my sql",
		"newHTTPClient v2Config ABCdef x9Y":     "new http client v2 config ab cdef x9 y",
		"plain words TEAMMEM_TOKEN pool_max 42": "",
		"Été ÉtéPlus":                           "",
	}
	for in, want := range cases {
		if got := CamelParts(in, 0); got != want {
			t.Errorf("CamelParts(%q) = %q, want %q", in, got, want)
		}
	}
	if got := WordsAndParts("Call RetryPush, fooBarÉ and MySQL.", 0, 100); got != "call retrypush foobare and mysql retry push my sql" {
		t.Errorf("WordsAndParts = %q", got)
	}
	d := DocOf("notes/RetryPolicy.md", "Call RetryPush first.")
	if d.Title != "notes retrypolicy md retry policy" || d.Body != "call retrypush first retry push" {
		t.Errorf("DocOf: %+v", d)
	}
}

func TestDocOf(t *testing.T) {
	d := DocOf("decisions/db_choice.md", "---\nname: Database choice\ndescription: \"Why Postgres, not MySQL\"\ntype: project\n---\nWe picked Postgres.\n")
	if d.Title != "decisions db choice md database choice why postgres not mysql my sql" {
		t.Errorf("title %q", d.Title)
	}
	if !strings.HasSuffix(d.Body, "we picked postgres my sql") {
		t.Errorf("body %q", d.Body)
	}
}

func TestIndexLines(t *testing.T) {
	idx := "# Index\n- [DB choice](decisions/db%20choice.md) — why Postgres\n- [Web](https://example.com) and [self](MEMORY.md)\n- [up](../x.md) [a](a.md#part) [b](<b c.md>)\n"
	got := IndexLines("MEMORY.md", idx)
	want := map[string]string{
		"decisions/db choice.md": "db choice decisions db 20choice md why postgres",
		"a.md":                   "up x md a a md part b b c md",
		"b c.md":                 "up x md a a md part b b c md",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("IndexLines = %q, want %q", got, want)
	}
	if got := IndexLines("team/MEMORY.md", "- [x](x.md)\n"); got["team/x.md"] == "" {
		t.Errorf("nested index: %q", got)
	}
}

func TestSnippet(t *testing.T) {
	content := strings.Repeat("filler words here. ", 20) + "Set pool_max_conns\n\nto 8 for the\tMake   release job. " + strings.Repeat("tail ", 100)
	terms, _ := Parse(`pool_max_conns "make release"`)
	s := SnippetOf(content, terms)
	if !strings.HasPrefix(s.Text, "…") || !strings.HasSuffix(s.Text, "…") {
		t.Errorf("no cut marks: %q", s.Text)
	}
	var got []string
	rs := []rune(s.Text)
	for _, m := range s.Matches {
		got = append(got, string(rs[m[0]:m[1]]))
	}
	if !reflect.DeepEqual(got, []string{"pool_max_conns", "Make   release"}) {
		t.Errorf("matches %q in %q", got, s.Text)
	}
	if n := utf8.RuneCountInString(s.Text); n > SnippetRunes+2 {
		t.Errorf("snippet of %d code points", n)
	}
	if s := SnippetOf("Café crème", []Term{{"creme"}}); s.Text != "Café crème" || !reflect.DeepEqual(s.Matches, [][2]int{{5, 10}}) {
		t.Errorf("accented: %+v", s)
	}
	if s := SnippetOf("no hit at all", []Term{{"zzz"}}); s.Text != "no hit at all" || s.Matches != nil {
		t.Errorf("no hit: %+v", s)
	}
}

// BenchmarkEntryOf measures the search text of one 2 KB note of English and
// identifiers, as every put computes it.
func BenchmarkEntryOf(b *testing.B) {
	note := benchNote()
	b.SetBytes(int64(len(note)))
	for b.Loop() {
		EntryOf("notes/deploy.md", note)
	}
}

// BenchmarkEntryOfAccented is BenchmarkEntryOf for a note whose words are
// mostly not ASCII (each such word is folded: NFKD, marks dropped).
func BenchmarkEntryOfAccented(b *testing.B) {
	var note strings.Builder
	for note.Len() < 2048 {
		note.WriteString("Déployer le RetryPolicy après la migration de la base; 部署 数据库 迁移; naïve café résumé. ")
	}
	b.SetBytes(int64(note.Len()))
	for b.Loop() {
		EntryOf("notes/déploiement.md", note.String())
	}
}

func benchNote() string {
	var note strings.Builder
	note.WriteString("---\nname: Deploy notes\ndescription: How we deploy the API server\n---\n\n")
	for note.Len() < 2048 {
		note.WriteString("Deploy the `RetryPolicy` after the database migration; set pool_max_conns in server/postgres/write.go and run `make release`. ")
	}
	return note.String()
}
