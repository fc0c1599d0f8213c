//go:build unix

package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// killContent is what writer w puts at generation g.
func killContent(w, g int) string { return fmt.Sprintf("writer %d, generation %d\n", w, g) }

// TestKillServerLosesNoAcknowledgedWrite kills the server with SIGKILL at
// a random moment while 8 writers push one-key PUTs (concurrent writes
// share commits) and starts it again on the same data directory: every
// write acknowledged before the kill must be there, each writer's key
// holding its last acknowledged generation or the one in flight when the
// server died, and the version must not be below any acknowledged one.
func TestKillServerLosesNoAcknowledgedWrite(t *testing.T) {
	const writers = 8
	for round := range 3 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			dir := t.TempDir()
			srv := startServer(t, dir, "127.0.0.1:0")
			acked := make([]int, writers) // writer → last acknowledged generation
			var maxVersion int64
			var mu sync.Mutex
			var wg sync.WaitGroup
			for w := range writers {
				wg.Go(func() {
					key := fmt.Sprintf("kill/w%d.md", w)
					for g := 1; ; g++ {
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						res, err := srv.api.Put(ctx, repo, api.PutRequest{Entries: map[string]string{key: killContent(w, g)}}, "")
						cancel()
						if err != nil {
							return // the server is gone
						}
						mu.Lock()
						acked[w], maxVersion = g, max(maxVersion, res.Version)
						mu.Unlock()
					}
				})
			}
			time.Sleep(time.Duration(300+rand.IntN(700)) * time.Millisecond)
			if err := srv.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			srv.wait()
			wg.Wait()
			if maxVersion == 0 {
				t.Fatalf("no write was acknowledged before the kill:\n%s", srv.stderr)
			}

			again := startServer(t, dir, "127.0.0.1:0")
			tm, err := again.api.Get(context.Background(), repo, client.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tm.Version < maxVersion {
				t.Errorf("version %d after the restart; %d was acknowledged", tm.Version, maxVersion)
			}
			for w, g := range acked {
				got := tm.Content.Entries[fmt.Sprintf("kill/w%d.md", w)]
				if g > 0 && got != killContent(w, g) && got != killContent(w, g+1) {
					t.Errorf("writer %d: %q after the restart; generation %d was acknowledged", w, got, g)
				}
			}
			t.Logf("%d writes acknowledged before the kill, up to version %d", sum(acked), maxVersion)
		})
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
