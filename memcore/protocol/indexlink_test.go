package protocol_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/protocol/protocoltest"
)

// indexKeys returns the keys an index links, in order, each once.
func indexKeys(dir, index string) []string {
	var keys []string
	for _, l := range protocol.IndexLines(dir, index) {
		for _, k := range l.Keys {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

func TestIndexLinkCases(t *testing.T) {
	for _, c := range protocoltest.IndexLinkCases {
		t.Run(c.Name, func(t *testing.T) {
			if got := indexKeys("", c.Index); !cmp.Equal(got, c.Keys) {
				t.Errorf("IndexLines(%q) link %q, want %q", c.Index, got, c.Keys)
			}
		})
	}
}

func TestLinks(t *testing.T) {
	for _, c := range []struct {
		line string
		want []protocol.Link
	}{
		{"[A](a.md)", []protocol.Link{{Text: "A", Dest: "a.md", Start: 0, End: 9}}},
		{"x ![i](<a b.md> 't') y", []protocol.Link{{Text: "i", Dest: "a b.md", Start: 3, End: 20}}},
		{"[a [b] c](d.md)", []protocol.Link{{Text: "a [b] c", Dest: "d.md", Start: 0, End: 15}}},
		{"[A]()", []protocol.Link{{Text: "A", Dest: "", Start: 0, End: 5}}},
		{`[A](a\)b.md)`, []protocol.Link{{Text: "A", Dest: `a\)b.md`, Start: 0, End: 12}}},
		{`[A](a\ b.md)`, nil},
		{"[a](b.md) ](c.md)", []protocol.Link{{Text: "a", Dest: "b.md", Start: 0, End: 9}}},
		{"``[A](a.md)`` [B](b.md) ``", []protocol.Link{{Text: "B", Dest: "b.md", Start: 14, End: 23}}},
		{"` [A](a.md)", []protocol.Link{{Text: "A", Dest: "a.md", Start: 2, End: 11}}},
		{"[A](<a<b>)", nil},
		{"[A](a.md 'unclosed)", nil},
		{"[A](a.md (t(u)))", nil},
		{"[A](" + strings.Repeat("(", 40) + "a" + strings.Repeat(")", 40) + ")", nil},
	} {
		if got := protocol.Links(c.line); !cmp.Equal(got, c.want) {
			t.Errorf("Links(%q) = %+v, want %+v", c.line, got, c.want)
		}
	}
}

func TestLinkTarget(t *testing.T) {
	for _, c := range []struct {
		dest, rel string
		local     bool
	}{
		{"a.md", "a.md", true},
		{"./sub/../a.md?x=1#top", "a.md", true},
		{`a\#b.md`, "a", true},
		{"a%23b.md", "a#b.md", true},
		{"50% done.md", "50% done.md", true},
		{"../x.md", "../x.md", true},
		{"%2Fetc", "/etc", true},
		{"", "", false},
		{"./", "", false},
		{"?q", "", false},
		{"#top", "", false},
		{"HTTPS://x/a.md", "", false},
		{`\\server\a.md`, "", false},
	} {
		rel, local := protocol.LinkTarget(c.dest)
		if rel != c.rel || local != c.local {
			t.Errorf("LinkTarget(%q) = %q, %v; want %q, %v", c.dest, rel, local, c.rel, c.local)
		}
	}
	for _, c := range []struct{ dir, rel, key string }{
		{"", "a.md", "a.md"},
		{".", "a.md", "a.md"},
		{"sub", "../a.md", "a.md"},
		{"sub", "../../a.md", ""},
		{"", "/etc/a.md", ""},
		{"", "a.exe", ""},
	} {
		if key, ok := protocol.JoinLink(c.dir, c.rel); key != c.key || ok != (c.key != "") {
			t.Errorf("JoinLink(%q, %q) = %q, %v; want %q", c.dir, c.rel, key, ok, c.key)
		}
	}
}

func TestLinkDest(t *testing.T) {
	keys := []string{"a.md", "my notes.md", "f(1).md", "c#.md", "why?.md", "a%b #c.md", "x<y>.md", "[x].md", "a`b.md", "~/x.md"}
	for _, k := range protocoltest.OrdinaryKeys {
		keys = append(keys, k.Key)
	}
	for _, key := range keys {
		if protocol.ValidateKey(key) != nil {
			continue
		}
		line := "- [T](" + protocol.LinkDest(key) + ") — hook"
		if got := protocol.LinkedKeys("", line); !cmp.Equal(got, []string{key}) {
			t.Errorf("%q links %q, want %q", line, got, key)
		}
	}
}

func TestFence(t *testing.T) {
	text := "a\n```go\nin\n~~~\n```` \nout\n   ~~~\nin\n~~~~\n    ```\nout\n``` x`y\nout\n"
	want := []bool{false, true, true, true, true, false, true, true, true, false, false, false, false}
	var f protocol.Fence
	var got []bool
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		got = append(got, f.Code(l))
	}
	if !cmp.Equal(got, want) {
		t.Errorf("Fence.Code per line = %v, want %v", got, want)
	}
}

// BenchmarkLinksHostile reads lines built to make a careless parser
// quadratic: every one must stay linear.
func BenchmarkLinksHostile(b *testing.B) {
	for name, line := range hostileLongLines() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				protocol.Links(line)
			}
		})
	}
}

// hostileLongLines are lines of about 100 KB that would cost a careless
// parser quadratic time.
func hostileLongLines() map[string]string {
	const n = 100_000
	return map[string]string{
		"open brackets":       strings.Repeat("[", n),
		"open destinations":   strings.Repeat("[](", n/3),
		"balanced tail":       strings.Repeat("[](", 40) + strings.Repeat("()", n/2),
		"backtick runs":       strings.Repeat("`", 1) + " " + strings.Repeat("``` ", n/4),
		"growing backticks":   growingRuns(n),
		"unclosed titles":     strings.Repeat(`[a](b "`, n/7),
		"unclosed paren text": strings.Repeat("[a](b (", n/7),
		"links":               strings.Repeat("[x](a.md)", n/9),
	}
}

func growingRuns(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		b.WriteString(strings.Repeat("`", i) + " ")
	}
	return b.String()
}
