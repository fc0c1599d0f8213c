package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/audit"
)

// TestFailedSaveRunsTheBatchAgainAlone: writes are saved without a
// savepoint each, so a statement that fails in the middle of one write
// of a batch (here a trigger refusing the revision of any key named
// poison) must not take the batch's other writes down with it nor leave
// any row of the failed one: the batch is rolled back and its writes run
// again one per transaction. Every other write commits, at contiguous
// versions, the poisoned one fails with the statement's error and leaves
// no entry, revision, version or audit record, and the audit chain
// still verifies.
func TestFailedSaveRunsTheBatchAgainAlone(t *testing.T) {
	ctx := context.Background()
	db := openAt(t, "")
	const repo = "acme/poison"
	seed, err := db.Apply(ctx, server.Write{Repo: repo, Puts: []server.Put{putOf("seed.md", "seed")}, Author: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, `CREATE TRIGGER poison BEFORE INSERT ON revisions
		WHEN NEW.key LIKE 'poison%' BEGIN SELECT RAISE(ABORT, 'poisoned revision'); END`); err != nil {
		t.Fatal(err)
	}
	const writers = 12
	committed := 0
	for round := 0; db.writer.ranAlone.Load() == 0; round++ {
		if round == 50 {
			t.Fatalf("in 50 rounds of %d concurrent writes the poisoned one never shared a batch", writers)
		}
		errs := make([]error, writers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range writers {
			wg.Go(func() {
				key := fmt.Sprintf("r%02d/k%02d.md", round, i)
				if i == writers/2 {
					key = fmt.Sprintf("poison-%02d.md", round)
				}
				<-start
				_, errs[i] = db.Apply(ctx, server.Write{Repo: repo, Puts: []server.Put{putOf(key, key)}, Author: "t"})
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			switch {
			case i == writers/2 && (err == nil || !strings.Contains(err.Error(), "poisoned revision")):
				t.Fatalf("round %d: the poisoned write returned %v; want the trigger's error", round, err)
			case i != writers/2 && err != nil:
				t.Fatalf("round %d: write %d failed with the poisoned one: %v", round, i, err)
			case i != writers/2:
				committed++
			}
		}
	}
	snap, err := db.Snapshot(ctx, repo, server.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := seed.State.Version + int64(committed); snap.Version != want {
		t.Errorf("version %d after %d writes on version %d; want %d", snap.Version, committed, seed.State.Version, want)
	}
	if len(snap.Live) != committed+1 {
		t.Errorf("%d live entries; want the seed and the %d committed", len(snap.Live), committed)
	}
	for _, q := range []string{
		`SELECT count(*) FROM entries WHERE key LIKE 'poison%'`,
		`SELECT count(*) FROM revisions WHERE key LIKE 'poison%'`,
		`SELECT count(*) FROM versions WHERE repo = 'acme/poison' AND version > ` + fmt.Sprint(snap.Version),
	} {
		var n int
		if err := db.read.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: %d rows; the failed write left rows behind", q, n)
		}
	}
	var versions int
	if err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM versions WHERE repo = ?`, repo).Scan(&versions); err != nil {
		t.Fatal(err)
	}
	if versions != committed+1 {
		t.Errorf("%d version rows; want one per committed write (%d)", versions, committed+1)
	}
	rep, err := audit.Verify(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	var entries int64
	for _, p := range rep.Problems {
		if !strings.Contains(p.String(), "signature") && !strings.Contains(p.String(), "unsigned") {
			t.Errorf("audit: %s", p)
		}
	}
	if entries = rep.Entries; entries < int64(committed+1) {
		t.Errorf("audit holds %d entries; want at least one per committed write (%d)", entries, committed+1)
	}
}

func putOf(key, content string) server.Put {
	return server.Put{Key: key, Content: content, Checksum: protocol.EntryChecksum([]byte(content))}
}

// TestStaleConditionalWriteNeedsNoTransaction: a conditional write whose
// precondition the committed state already fails is refused before its
// batch begins a transaction. Another connection holds the database's
// write lock meanwhile: a write that began a transaction would wait for
// it (up to busyTimeout), the refusal comes at once. A write conditional
// on the current state still commits once the lock is let go.
func TestStaleConditionalWriteNeedsNoTransaction(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	db := openAt(t, path)
	const repo = "acme/cas"
	first, err := db.Apply(ctx, server.Write{Repo: repo, Puts: []server.Put{putOf("a.md", "a")}, Author: "t"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := db.Apply(ctx, server.Write{Repo: repo, Puts: []server.Put{putOf("b.md", "b")}, Author: "t"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	stale := server.Write{Repo: repo, Puts: []server.Put{putOf("c.md", "c")}, Author: "t", IfMatch: server.TagList(first.State.Checksum)}
	quick, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = db.Apply(quick, stale)
	if !errors.Is(err, server.ErrPreconditionFailed) {
		t.Fatalf("a write on a state two writes old, with the write lock held elsewhere = %v; want a failed precondition at once", err)
	}
	if n := db.writer.refused.Load(); n != 1 {
		t.Errorf("%d writes refused before their batch; want 1", n)
	}
	current := server.Write{Repo: repo, Puts: []server.Put{putOf("c.md", "c")}, Author: "t", IfMatch: server.TagList(second.State.Checksum)}
	done := make(chan error, 1)
	go func() { _, err := db.Apply(ctx, current); done <- err }()
	time.Sleep(100 * time.Millisecond)
	if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the write on the current state: %v", err)
	}
}
