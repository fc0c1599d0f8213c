package refs

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in       string
		explicit bool
		want     Ref
		ok       bool
	}{
		{in: "client/push.go", want: Ref{Path: "client/push.go"}, ok: true},
		{in: "client/push.go:12", want: Ref{Path: "client/push.go", Start: 12, End: 12}, ok: true},
		{in: "client/push.go:12-40", want: Ref{Path: "client/push.go", Start: 12, End: 40}, ok: true},
		{in: "client/push.go#L10-L20", want: Ref{Path: "client/push.go", Start: 10, End: 20}, ok: true},
		{in: "client/push.go#L7", want: Ref{Path: "client/push.go", Start: 7, End: 7}, ok: true},
		{in: "client/push.go:RetryPush", want: Ref{Path: "client/push.go", Symbol: "RetryPush"}, ok: true},
		{in: "client/push.go:Engine.Run()", want: Ref{Path: "client/push.go", Symbol: "Engine.Run"}, ok: true},
		{in: "./scripts/../scripts/release.sh", want: Ref{Path: "scripts/release.sh"}, ok: true},
		{in: "./Makefile", want: Ref{Path: "Makefile"}, ok: true},
		{in: "docs/", want: Ref{Path: "docs", Dir: true}, ok: true},
		{in: ".github/workflows/ci.yml", want: Ref{Path: ".github/workflows/ci.yml"}, ok: true},
		{in: "Makefile", explicit: true, want: Ref{Path: "Makefile"}, ok: true},
		{in: "client/agent", explicit: true, want: Ref{Path: "client/agent"}, ok: true},
		// Not references: prose, ambiguous names, outside the repository.
		{in: "main.go"},
		{in: "client/agent"},           // no extension, no final slash: a package? a slug?
		{in: "teammem/teammem"},        // a repository slug
		{in: "application/json"},       // a media type
		{in: "gopkg.in/yaml.v3"},       // a module path
		{in: "golang.org/x/text"},      // a module path
		{in: "https://x.example/a.go"}, // a web address
		{in: "/etc/passwd"},
		{in: "../outside/a.go"},
		{in: "a/../../b.go"},
		{in: "go test ./..."},
		{in: "--stale-after"},
		{in: "http.Client"},
		{in: "client/push.go:20-10"},
		{in: "docs/:12"},
		{in: "a b/c.go"},
		{in: strings.Repeat("a/", 101) + "b.go"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := Parse(tt.in, tt.explicit)
			if ok != tt.ok {
				t.Fatalf("Parse(%q) ok = %v, want %v (%+v)", tt.in, ok, tt.ok, got)
			}
			if !ok {
				return
			}
			tt.want.Text = tt.in
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, d)
			}
		})
	}
}

const topic = "---\n" +
	"name: deploys\n" +
	"description: how we deploy\n" +
	"refs:\n" +
	"  - Makefile\n" +
	"  - server/httpapi/router.go#L1-L3\n" +
	"---\n" +
	"Deploys go through `scripts/release.sh` (see [the retry](client/push.go#L10-L20)).\n" +
	"The retry lives in `client/push.go:RetryPush`; `Backoff` in client/backoff.go.\n" +
	"`Jitter()` in `client/backoff.go` and `Wait` in [wait](client/wait.go) too.\n" +
	"Prose mentions client/prose.go and main.go and `teammem/teammem`, not claims.\n" +
	"A [topic link](other_topic.md) and [another](sub/more.md#x) are memory links.\n" +
	"\n" +
	"```sh\n" +
	"cat `client/example.go` client/fenced.go:Nope\n" +
	"```\n" +
	"\n" +
	"    `client/indented.go`\n" +
	"\n" +
	"<div>`client/html.go`</div>\n" +
	"\n" +
	"Again `scripts/release.sh` and `client/push.go:12`.\n"

func TestExtract(t *testing.T) {
	memFiles := map[string]bool{"other_topic.md": true, "sub/more.md": true}
	got := Extract(topic, Options{MemoryFile: func(p string) bool { return memFiles[p] }})
	want := []Ref{
		{Text: "Makefile", Path: "Makefile", Line: 5},
		{Text: "server/httpapi/router.go#L1-L3", Path: "server/httpapi/router.go", Start: 1, End: 3, Line: 6},
		{Text: "scripts/release.sh", Path: "scripts/release.sh", Line: 8},
		{Text: "client/push.go#L10-L20", Path: "client/push.go", Start: 10, End: 20, Line: 8},
		{Text: "client/push.go:RetryPush", Path: "client/push.go", Symbol: "RetryPush", Line: 9},
		{Text: "Backoff in client/backoff.go", Path: "client/backoff.go", Symbol: "Backoff", Line: 9},
		{Text: "Jitter() in client/backoff.go", Path: "client/backoff.go", Symbol: "Jitter", Line: 10},
		{Text: "client/backoff.go", Path: "client/backoff.go", Line: 10},
		{Text: "Wait in client/wait.go", Path: "client/wait.go", Symbol: "Wait", Line: 10},
		{Text: "client/wait.go", Path: "client/wait.go", Line: 10},
		{Text: "client/push.go:12", Path: "client/push.go", Start: 12, End: 12, Line: 22},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Extract (-want +got):\n%s", d)
	}
}

func TestExtractHostile(t *testing.T) {
	t.Run("many references are capped", func(t *testing.T) {
		var b strings.Builder
		for i := range 1000 {
			b.WriteString("`d/f" + strings.Repeat("x", i%50) + string(rune('a'+i%26)) + ".go` ")
		}
		if got := Extract(b.String(), Options{}); len(got) != MaxRefs {
			t.Errorf("got %d references, want %d", len(got), MaxRefs)
		}
	})
	t.Run("bad frontmatter still reads the body", func(t *testing.T) {
		got := Extract("---\nrefs: [unclosed\n---\nsee `a/b.go`\n", Options{})
		if len(got) != 1 || got[0].Path != "a/b.go" || got[0].Line != 4 {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("refs of other types are ignored", func(t *testing.T) {
		got := Extract("---\nrefs:\n  - {a: b}\n  - 12\n  - /abs/x.go\n  - ../up.go\n  - ok/x.go\n---\n", Options{})
		if len(got) != 1 || got[0].Path != "ok/x.go" || got[0].Line != 7 {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("invalid UTF-8 and NUL", func(t *testing.T) {
		got := Extract("`a/\xff.go` `a/\x00.go` `ok/y.go`", Options{})
		if len(got) != 1 || got[0].Path != "ok/y.go" {
			t.Errorf("got %+v", got)
		}
	})
}

// refTextRe is what a reference's text may hold: a path, a line or symbol
// suffix, or "Symbol in path".
var refTextRe = regexp.MustCompile(`^[A-Za-z0-9_./+\-:#()]+( in [A-Za-z0-9_./+\-:#()]+)?$`)

func FuzzExtract(f *testing.F) {
	f.Add(topic)
	f.Add("`a` in `b/c.go` `d/e.go:1-2` [x](f/g.go#L1)")
	f.Add("---\nrefs: [\"@x/.env\", \"x @y.md\", \"a.go:@b\"]\n---\n`@z/.env` [n](@w.md) `Run` in @v/a.go")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range Extract(s, Options{}) {
			if r.Path == "" || strings.HasPrefix(r.Path, "/") || strings.HasPrefix(r.Path, "../") || r.Line < 1 ||
				strings.ContainsAny(r.Text, "\n\r") || len(r.Text) > MaxRefText+len(" in ")+MaxRefText {
				t.Fatalf("bad reference %+v from %q", r, s)
			}
			// A reference's text reaches every teammate's model in the
			// block's stale warnings: it holds no "@" (nor anything
			// else that could start an import, a link or HTML).
			if !refTextRe.MatchString(r.Text) {
				t.Fatalf("reference text %q from %q holds more than a path and a symbol", r.Text, s)
			}
		}
	})
}
