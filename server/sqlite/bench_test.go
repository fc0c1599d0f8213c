package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/sqlite"
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

// BenchmarkServedHour: the served records of 10,000 agents pulling every
// 2 s for an hour, the repository quiet or written every 5 minutes.
func BenchmarkServedHour(b *testing.B) {
	for _, every := range []time.Duration{0, 5 * time.Minute} {
		b.Run(fmt.Sprintf("write-every=%v", every), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "teammem.db")
			db, err := sqlite.Open(context.Background(), path, sqlite.Options{Migrate: true})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			storetest.BenchServedHour(b, db, every, func() int64 { return servedBytes(b, path) })
		})
	}
}

// servedBytes is the pages of the served table and its indexes.
func servedBytes(b *testing.B, path string) int64 {
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	var n int64
	if err := raw.QueryRow(`SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name LIKE 'served%'`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}
