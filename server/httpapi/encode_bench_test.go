package httpapi

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// BenchmarkEncodeFull1000 encodes the full GET body of 1,000 entries of
// 2 KB, as a cached body is built.
func BenchmarkEncodeFull1000(b *testing.B) {
	snap := server.Snapshot{RepoState: server.RepoState{Repo: "acme/api", Version: 7, Checksum: "sha256:x", UpdatedAt: time.Now()}}
	for i := range 1000 {
		c := strings.Repeat(fmt.Sprintf("line %d <b>&\n", i), 200)[:2048]
		snap.Live = append(snap.Live, server.Entry{Key: fmt.Sprintf("topic-%04d.md", i), Content: c, Checksum: protocol.EntryChecksum([]byte(c))})
	}
	h := &handler{svc: server.NewService(nil, server.Config{Org: "o"})}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.encodeSnapshot(snap, ""); err != nil {
			b.Fatal(err)
		}
	}
}
