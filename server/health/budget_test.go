package health_test

import (
	"strings"
	"testing"

	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/server/health"
)

// TestLoadedLinesIsWhatMemcoreLoads: the lines the health check says the
// client loads are the lines memcore keeps when it truncates an index
// (whole lines), for indexes at, under and over each bound.
func TestLoadedLinesIsWhatMemcoreLoads(t *testing.T) {
	for _, content := range []string{
		"", "- [a](a.md)\n", "a\r\nb\r\n", bigIndex(200, 124), bigIndex(201, 10), bigIndex(130, 200),
		bigIndex(200, 126), bigIndex(199, 125) + "\n\n  \n", strings.Repeat("x", 30_000) + "\n- [a](a.md)\n",
		bigIndex(150, 170) + strings.Repeat("y", 300) + "\n",
	} {
		out, truncated := memcore.TruncateIndexLines("MEMORY.md", content)
		kept := 0
		if truncated {
			body, _, _ := strings.Cut(out, "> WARNING:")
			kept = len(strings.Split(strings.TrimRight(body, "\n"), "\n"))
			if strings.TrimSpace(body) == "" {
				kept = 0
			}
		}
		loaded, total := health.LoadedLines(content)
		if !truncated {
			kept = total
		}
		if loaded != kept {
			t.Errorf("%d lines of %d bytes: the check says %d loaded, memcore keeps %d", total, len(content), loaded, kept)
		}
	}
}
