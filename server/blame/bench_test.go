package blame_test

import (
	"testing"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/blame"
	"github.com/teammem/teammem/server/storetest"
)

// BenchmarkBlame blames the newest revision of a MEMORY.md of
// storetest.BlameRevisions revisions (storetest.MemoryHistory): the diffs
// alone, without the store's read (the stores' KeyRevisions benchmarks).
// Making the contents is part of each iteration, as reading them is of a
// real blame.
func BenchmarkBlame(b *testing.B) {
	var bytes int64
	for b.Loop() {
		var h storetest.MemoryHistory
		var bl blame.Builder
		bytes = 0
		for v := range int64(storetest.BlameRevisions) {
			content := h.Next()
			bytes += int64(len(content))
			_ = bl.Add(server.Revision{Version: v + 1, Op: server.OpPut, Content: content})
		}
		if got := bl.Blame(); len(got.Lines) == 0 {
			b.Fatal("no lines")
		}
	}
	b.SetBytes(bytes)
}
