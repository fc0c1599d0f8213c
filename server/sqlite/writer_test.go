package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/sqlite"
)

// TestGroupCommit runs many concurrent Applies on one repository, which
// the writer commits in shared transactions: unconditional puts, If-Match
// puts carrying a stale checksum (which must fail alone) and puts over the
// entry limit (likewise). Every write must get its own outcome, no
// acknowledged write may be lost, and versions must be contiguous.
func TestGroupCommit(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	const repo = "acme/group"
	if _, err := db.Apply(ctx, server.Write{Repo: repo, Puts: []server.Put{put("seed.md", "seed")}, Author: "t"}); err != nil {
		t.Fatal(err)
	}
	stale := protocol.DatasetChecksum(map[string]string{"never.md": protocol.EntryChecksum(nil)})
	const writers, perWriter = 24, 10
	type outcome struct {
		key     string
		version int64
		err     error
	}
	results := make(chan outcome, writers*perWriter)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				key := fmt.Sprintf("g%02d/k%d.md", g, i)
				w := server.Write{Repo: repo, Puts: []server.Put{put(key, key)}, Author: "t"}
				switch g % 3 {
				case 1:
					w.IfMatch = server.TagList(stale)
				case 2:
					w.MaxEntries = 1 // the seed alone fills it
				}
				res, err := db.Apply(ctx, w)
				results <- outcome{key, res.State.Version, err}
			}
		}()
	}
	wg.Wait()
	close(results)
	want := map[string]string{"seed.md": "seed"}
	versions := map[int64]string{1: "seed.md"}
	for r := range results {
		var g int
		fmt.Sscanf(r.key, "g%02d", &g)
		switch {
		case g%3 == 0 && r.err == nil:
			want[r.key] = r.key
			if other, dup := versions[r.version]; dup {
				t.Errorf("%s and %s both acknowledged at version %d", r.key, other, r.version)
			}
			versions[r.version] = r.key
		case g%3 == 1 && errors.Is(r.err, server.ErrPreconditionFailed):
		case g%3 == 2 && errors.Is(r.err, server.ErrTooManyEntries):
		default:
			t.Errorf("write of %s (writer kind %d): version %d, error %v", r.key, g%3, r.version, r.err)
		}
	}
	if n := sqlite.LargestBatch(db); n < 2 {
		t.Errorf("largest batch held %d writes; the test did not exercise group commit", n)
	}
	st, err := db.RepoState(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != int64(len(want)) || st.Entries != len(want) {
		t.Errorf("state: version %d, %d entries; want %d of each", st.Version, st.Entries, len(want))
	}
	for v := int64(1); v <= st.Version; v++ {
		if _, ok := versions[v]; !ok {
			t.Errorf("version %d was not acknowledged to any write", v)
		}
	}
	if diff := cmp.Diff(want, liveContents(t, db, repo)); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
	for v, key := range versions {
		if rev, err := db.Revision(ctx, repo, key, v); err != nil || rev.Content != want[key] {
			t.Errorf("revision of %s at %d = %q, %v", key, v, rev.Content, err)
		}
	}
}

func put(key, content string) server.Put {
	return server.Put{Key: key, Content: content, Checksum: protocol.EntryChecksum([]byte(content))}
}

// TestLoneWriterNeverLingers: writes from one caller at a time each get a
// batch of their own at once; the writer waits for company only after a
// batch shared by concurrent writers.
func TestLoneWriterNeverLingers(t *testing.T) {
	db := open(t)
	for i := range 50 {
		key := fmt.Sprintf("k%d.md", i)
		if _, err := db.Apply(context.Background(), server.Write{Repo: "acme/lone", Puts: []server.Put{put(key, key)}, Author: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	if n, l := sqlite.LargestBatch(db), sqlite.Lingered(db); n != 1 || l != 0 {
		t.Errorf("largest batch %d, %d batches lingered; want 1 and 0", n, l)
	}
}

// TestConditionalWritesNeverLinger: concurrent If-Match writes share
// batches as they come but are never held back for company.
func TestConditionalWritesNeverLinger(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	if _, err := db.Apply(ctx, server.Write{Repo: "acme/cas", Puts: []server.Put{put("seed.md", "seed")}, Author: "t"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				key := fmt.Sprintf("g%d/k%d.md", g, i)
				if _, err := db.Apply(ctx, server.Write{Repo: "acme/cas", Puts: []server.Put{put(key, key)}, IfMatch: server.AnyTag(), Author: "t"}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if l := sqlite.Lingered(db); l != 0 {
		t.Errorf("%d batches of conditional writes lingered; want 0 (largest batch %d)", l, sqlite.LargestBatch(db))
	}
}

// TestBatchesFillOnOneCPU: with one CPU for Go (as a server pinned to one
// CPU), 16 goroutines writing without a pause share batches: the writer
// lets the ready ones submit before it begins. Without that, each submit
// handed the CPU to the writer and batches held under 2 writes on average.
func TestBatchesFillOnOneCPU(t *testing.T) {
	db := open(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ctx := context.Background()
	const writers, perWriter = 16, 30
	before, beforeJobs := sqlite.Batched(db)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range perWriter {
				key := fmt.Sprintf("g%02d.md", g)
				if _, err := db.Apply(ctx, server.Write{Repo: "acme/onecpu", Puts: []server.Put{put(key, fmt.Sprint(i))}, Author: "t"}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	batches, jobs := sqlite.Batched(db)
	batches, jobs = batches-before, jobs-beforeJobs
	if jobs < writers*perWriter { // the writer's own jobs (indexing, merging) count too
		t.Fatalf("%d jobs batched, want at least %d", jobs, writers*perWriter)
	}
	if avg := float64(jobs) / float64(batches); avg < 6 {
		t.Errorf("%d writes in %d batches (%.1f a batch) from %d concurrent writers on one CPU; want at least 6 a batch", jobs, batches, avg, writers)
	}
}

// TestWALBoundedUnderLoad writes without a pause from 8 goroutines, so
// that a write transaction always begins before a passive checkpoint has
// copied the whole WAL: without the writer's rewind the WAL never starts
// again from the top and grows with every write. With it the WAL is
// rewound, and the last checkpoint finds it short; every write is kept.
func TestWALBoundedUnderLoad(t *testing.T) {
	sqlite.SetWALRestartFrames(t, 64)
	path := filepath.Join(t.TempDir(), "teammem.db")
	db, err := sqlite.Open(t.Context(), path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	const repo, writers = "acme/wal", 8
	var wg sync.WaitGroup
	last := make([]string, writers)
	deadline := time.Now().Add(3 * time.Second)
	for g := range writers {
		wg.Go(func() {
			for i := 0; time.Now().Before(deadline) || sqlite.Rewound(db) < 2; i++ {
				content := fmt.Sprintf("writer %d, write %d\n%s", g, i, strings.Repeat("wal ", 500))
				key := fmt.Sprintf("w%d.md", g)
				if _, err := db.Apply(ctx, server.Write{Repo: repo, Puts: []server.Put{put(key, content)}, Author: "t"}); err != nil {
					t.Error(err)
					return
				}
				last[g] = content
				if time.Now().After(deadline.Add(20 * time.Second)) {
					return
				}
			}
		})
	}
	wg.Wait()
	if n := sqlite.Rewound(db); n < 2 {
		t.Fatalf("the WAL was rewound %d times under 3 s of writes, want at least 2", n)
	}
	got := liveContents(t, db, repo)
	for g, content := range last {
		if got[fmt.Sprintf("w%d.md", g)] != content {
			t.Errorf("w%d.md holds %.30q, want the last acknowledged %.30q", g, got[fmt.Sprintf("w%d.md", g)], content)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 64<<20 {
		t.Errorf("WAL of %d bytes left after close", fi.Size())
	}
}

// liveContents returns the content of each live entry of repo, by key.
func liveContents(t *testing.T, db *sqlite.DB, repo string) map[string]string {
	t.Helper()
	snap, err := db.Snapshot(context.Background(), repo, server.ReadOptions{WithContent: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range snap.Live {
		got[e.Key] = e.Content
	}
	return got
}
