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
		{`make release`, []Term{term("make"), term("releas", "release")}, nil},
		{`"make release" pool_max_conns`, []Term{term("make releas", "make release"), term("pool max conns")}, nil},
		{`NEAR(a, b) AND -c OR NOT d^2 col:x *`, []Term{term("near a"), term("b"), term("and"), term("c"), term("or"), term("not"),
			term("d 2"), term("col x")}, nil},
		{`"unterminated phrase`, []Term{term("untermin phrase", "unterminated phrase")}, nil},
		{`Go go GO`, []Term{term("go")}, nil},
		{`Deploys deploying`, []Term{term("deploy", "deploys"), term("deploy", "deploying")}, nil},
		{`deploys.md RetryPush v2 user@host`, []Term{term("deploys md"), term("retrypush"), term("v2"), term("user host")}, nil},
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

// term is the Term of forms, each its words separated by spaces.
func term(forms ...string) Term {
	var t Term
	for _, f := range forms {
		t.Forms = append(t.Forms, strings.Fields(f))
	}
	return t
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
	if got := WordsAndParts("Call RetryPush, fooBar and MySQL.", 0, 100); got != "call retrypush foobar and mysql retry push foo bar my sql" {
		t.Errorf("WordsAndParts = %q", got)
	}
	d := DocOf("notes/RetryPolicy.md", "Call RetryPush first.")
	if d.Name != "notes retrypolicy md retrypolicy retry policy" || d.About != "" || d.Body != "call retrypush first retry push" {
		t.Errorf("DocOf: %+v", d)
	}
}

func TestDocOf(t *testing.T) {
	d := DocOf("decisions/db_choice.md", "---\nname: Database choices\ndescription: \"Why Postgres, not MySQL\"\ntype: project\n---\nWe picked Postgres.\n")
	want := Doc{Name: "decisions db choice md db choice databas choic", About: "whi postgr not mysql my sql", Body: "project we pick postgr"}
	if d != want {
		t.Errorf("DocOf = %+v, want %+v", d, want)
	}
	if d.Title() != d.Name+" "+d.About {
		t.Errorf("Title = %q", d.Title())
	}
}

// TestIndexTextStemsProseOnly: words of prose are indexed by their stems;
// identifiers (joined by _ . / : @ and the like, camelCase, words with
// digits) keep every part as written.
func TestIndexTextStemsProseOnly(t *testing.T) {
	cases := map[string]string{
		"Deploys, deploying and DEPLOYED.":               "deploy deploy and deploy",
		"(deploys) [Deploys](deploys.md) \"running\"":    "deploy deploy deploys md run",
		"set pool_max_conns in server/postgres/write.go": "set pool max conns in server postgres write go",
		"os.Root user@hosts a=b+c key:values":            "os root user hosts a b c key values",
		"RetryPushes MySQL APIs http2 v2 3rd":            "retrypushes mysql apis http2 v2 3rd",
		"well-known re-deploys — naïve cafés":            "well known re deploy naiv cafe",
		"end of sentence.Next word; x_":                  "end of sentence next word x",
	}
	for in, want := range cases {
		if got := IndexText(in, 0); got != want {
			t.Errorf("IndexText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIndexLines(t *testing.T) {
	idx := "# Index\n- [DB choice](decisions/db%20choice.md) — why Postgres\n- [Web](https://example.com) and [self](MEMORY.md)\n- [up](../x.md) [a](a.md#part) [b](<b c.md>)\n"
	got := IndexLines("MEMORY.md", idx)
	want := map[string]string{
		"decisions/db choice.md": "db choic decisions db 20choice md whi postgr",
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
	if s := SnippetOf("Café crème", []Term{term("creme")}); s.Text != "Café crème" || !reflect.DeepEqual(s.Matches, [][2]int{{5, 10}}) {
		t.Errorf("accented: %+v", s)
	}
	if s := SnippetOf("no hit at all", []Term{term("zzz")}); s.Text != "no hit at all" || s.Matches != nil {
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
