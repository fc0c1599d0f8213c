package sqlite_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/storetest"
)

func BenchmarkStore(b *testing.B) {
	storetest.Benchmarks(b, func(b *testing.B) server.Store { return open(b) })
}

// BenchmarkApplyParallel puts one 2 KB key per write from 16 goroutines
// into a repository of n entries, as the HTTP put load does: the writes
// share transactions (group commit).
func BenchmarkApplyParallel(b *testing.B) {
	for _, n := range []int{20, 1000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			db := open(b)
			ctx := context.Background()
			for start := 0; start < n; start += 100 {
				var puts []server.Put
				for i := start; i < min(n, start+100); i++ {
					puts = append(puts, benchPut(i, 0))
				}
				if _, err := db.Apply(ctx, server.Write{Repo: "acme/api", Puts: puts, Author: "bench"}); err != nil {
					b.Fatal(err)
				}
			}
			var seq atomic.Int64
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := int(seq.Add(1))
					w := server.Write{Repo: "acme/api", Puts: []server.Put{benchPut(i%n, i)}, Author: "bench"}
					if _, err := db.Apply(ctx, w); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

func benchPut(i, rev int) server.Put {
	content := fmt.Sprintf("# Topic %d, revision %d\n\n%s", i, rev, strings.Repeat("A line of team memory.\n", 88))
	return server.Put{Key: fmt.Sprintf("notes/topic-%04d.md", i), Content: content,
		Checksum: protocol.EntryChecksum([]byte(content))}
}
