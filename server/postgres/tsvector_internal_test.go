package postgres

import (
	"strings"
	"testing"

	"github.com/teammem/teammem/server/internal/searchtext"
)

// TestTsvectorText: positions run across the parts with each part's
// weight; a lexeme keeps at most maxPositions of them, none past
// maxPosition; quotes and backslashes are escaped.
func TestTsvectorText(t *testing.T) {
	if got, want := tsvectorText(2, vectorPart{"a b a", 'A'}, vectorPart{"c a", 0}), "'a':2A,4A,6 'b':3A 'c':5"; got != want {
		t.Errorf("tsvectorText = %q, want %q", got, want)
	}
	if got, want := withScope("acme/web", "'x':2"), "'"+searchtext.Scope("acme/web")+"':1C 'x':2"; got != want {
		t.Errorf("withScope = %q, want %q", got, want)
	}
	many := tsvectorText(1, vectorPart{strings.Repeat("w ", 300), 0})
	if n := strings.Count(many, ","); n != maxPositions-1 {
		t.Errorf("%d positions kept, want %d", n+1, maxPositions)
	}
	far := tsvectorText(maxPosition, vectorPart{"x y", 0})
	if far != "'x':16383 'y'" {
		t.Errorf("past the last position: %q", far)
	}
	var b strings.Builder
	quoteLexeme(&b, `it's a\b`)
	if b.String() != `'it\'s a\\b'` {
		t.Errorf("quoteLexeme = %s", b.String())
	}
}

// BenchmarkDocOf measures the search text and vectors of one 2 KB note of
// English and identifiers, as every put computes them.
func BenchmarkDocOf(b *testing.B) {
	var note strings.Builder
	for note.Len() < 2048 {
		note.WriteString("Deploy the `RetryPolicy` after the database migration; set pool_max_conns in server/postgres/write.go and run `make release`. ")
	}
	for b.Loop() {
		docOf(searchtext.EntryOf("notes/deploy.md", note.String()))
	}
}
