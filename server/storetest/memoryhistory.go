package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/teammem/teammem/server"
)

// MemoryHistory makes the successive contents of a MEMORY.md that many
// people write: it grows by one index line per revision to 150 lines
// (about 12 KB), then each revision rewrites one line, and every tenth
// also drops one and adds one at the end. The same n revisions every
// time, for the blame benchmarks of the stores and of server/blame.
type MemoryHistory struct {
	lines []string
	n     int
}

// memoryLines is how long a MemoryHistory grows.
const memoryLines = 150

// Next returns the content of the next revision.
func (h *MemoryHistory) Next() string {
	h.n++
	line := fmt.Sprintf("- [Topic %d](topic-%d.md) — what the team learned about topic %d at revision %d\n", h.n, h.n, h.n%97, h.n)
	switch i := h.n * 7919 % memoryLines; {
	case len(h.lines) < memoryLines:
		h.lines = append(h.lines, line)
	case h.n%10 == 0:
		h.lines = append(append(h.lines[:i:i], h.lines[i+1:]...), line)
	default:
		h.lines[i] = line
	}
	return strings.Join(h.lines, "")
}

// BlameRevisions is how many revisions the blame benchmarks walk.
const BlameRevisions = 10_000

// benchKeyRevisions reads every revision of a MEMORY.md of
// BlameRevisions revisions with its content, oldest first: the store's
// share of a blame of its newest revision.
func benchKeyRevisions(b *testing.B, s server.Store) {
	ctx := context.Background()
	var h MemoryHistory
	var bytes int64
	for i := range BlameRevisions {
		content := h.Next()
		bytes += int64(len(content))
		if _, err := s.Apply(ctx, write(repo, at(i), contents{"MEMORY.md": content})); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(bytes)
	defer measureCPU(b)()
	for b.Loop() {
		n := 0
		err := s.KeyRevisions(ctx, repo, "MEMORY.md", 0, func(server.Revision) error { n++; return nil })
		if err != nil || n != BlameRevisions {
			b.Fatalf("KeyRevisions: %d revisions, %v", n, err)
		}
	}
}
