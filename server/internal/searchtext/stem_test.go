package searchtext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStem(t *testing.T) {
	cases := map[string]string{
		"deploy": "deploy", "deploys": "deploy", "deployed": "deploy", "deploying": "deploy", "deployment": "deploy",
		"running": "run", "runs": "run", "migrations": "migrat", "migrating": "migrat", "replicas": "replica",
		"happy": "happi", "happiness": "happi", "dying": "die", "skies": "sky", "news": "news", "generously": "generous",
		"possibly": "possibl", "conns": "conn", "memories": "memori", "memory": "memori",
		// not stemmed: short words, digits, other scripts, upper case (callers normalise first)
		"is": "is", "v2": "v2", "http2": "http2", "部署": "部署", "Deploys": "Deploys", "naïve": "naïve",
	}
	for in, want := range cases {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
		if got := Stem(in); got != want { // the second time from the cache
			t.Errorf("Stem(%q) again = %q, want %q", in, got, want)
		}
	}
}

// TestStemAnchor checks what snippets rely on to skip words cheaply: every
// word starts with the anchor of its stem, and keeps its first letter. The
// words are those of the project's documentation.
func TestStemAnchor(t *testing.T) {
	files, err := filepath.Glob("../../../docs/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no documentation to read words from: %v", err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range strings.Fields(Normalize(string(data), 0)) {
			if seen[w] {
				continue
			}
			seen[w] = true
			if s := Stem(w); !strings.HasPrefix(w, anchor(s)) || s[0] != w[0] {
				t.Errorf("%q stems to %q, whose anchor %q does not start it", w, s, anchor(s))
			}
		}
	}
	if len(seen) < 1000 {
		t.Errorf("only %d words checked", len(seen))
	}
}

// BenchmarkStem: a word of prose, from the cache as nearly every word of a
// note is.
func BenchmarkStem(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Stem("deploying")
	}
}
