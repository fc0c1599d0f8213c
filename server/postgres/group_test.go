package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
)

func putWrite(repo, key, content string) server.Write {
	return server.Write{Repo: repo, Author: "t", At: time.Now(),
		Puts: []server.Put{{Key: key, Content: content, Checksum: protocol.EntryChecksum([]byte(content))}}}
}

// twoReplicas opens a fresh schema through two pools, as two server
// processes would.
func twoReplicas(t *testing.T) (url string, a, b *postgres.DB) {
	url = freshURL(t, pgtest.URL(t))
	return url, open(t, url, postgres.Options{Migrate: true}), open(t, url, postgres.Options{})
}

// TestGroupCommit runs many concurrent writes of one repository, which
// share transactions: every write is acknowledged with its own version,
// the versions count the writes, every one has its revision, and each
// key holds its last acknowledged content.
func TestGroupCommit(t *testing.T) {
	db := open(t, freshURL(t, pgtest.URL(t)), postgres.Options{Migrate: true})
	const repo, writers, each = "acme/group", 16, 20
	ctx := context.Background()
	var mu sync.Mutex
	type ack struct{ key, content string }
	versions := map[int64]ack{}
	last := map[string]string{}
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range each {
				key, content := fmt.Sprintf("w%02d.md", i), fmt.Sprintf("writer %d write %d", i, n)
				res, err := db.Apply(ctx, putWrite(repo, key, content))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if other, dup := versions[res.State.Version]; dup {
					t.Errorf("version %d acknowledged twice (%v and %s)", res.State.Version, other, content)
				}
				versions[res.State.Version], last[key] = ack{key, content}, content
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	st, err := db.RepoState(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != writers*each || len(versions) != writers*each {
		t.Errorf("version %d after %d acknowledged writes, want %d", st.Version, len(versions), writers*each)
	}
	snap, err := db.Snapshot(ctx, repo, server.ReadOptions{WithContent: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range snap.Live {
		if e.Content != last[e.Key] {
			t.Errorf("%s holds %q, last acknowledged %q", e.Key, e.Content, last[e.Key])
		}
	}
	if len(snap.Live) != writers {
		t.Errorf("%d live entries, want %d", len(snap.Live), writers)
	}
	for v, a := range versions {
		r, err := db.Revision(ctx, repo, a.key, v)
		if err != nil || r.Content != a.content {
			t.Errorf("revision %d of %s: %q, %v; want %q", v, a.key, r.Content, err, a.content)
		}
	}
	if n := postgres.LargestGroup(db); n < 2 {
		t.Errorf("largest group held %d writes; the test did not exercise group commit", n)
	}
}

// TestFailedGroupForgetsLiveSet: when a group's transaction fails after
// its writes were planned, the process's cached live set (already moved to
// the planned version) is dropped, so that a version another replica
// writes meanwhile is not mistaken for the one planned here.
func TestFailedGroupForgetsLiveSet(t *testing.T) {
	url, a, b := twoReplicas(t)
	ctx := context.Background()
	const repo = "acme/forget"
	if _, err := a.Apply(ctx, putWrite(repo, "k.md", "one")); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// A row in the way of version 2 makes a's next transaction fail at COMMIT time.
	if _, err := conn.Exec(ctx, `INSERT INTO versions (repo, version, checksum) VALUES ($1, 2, 'planted')`, repo); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Apply(ctx, putWrite(repo, "k.md", "two")); err == nil {
		t.Fatal("a write whose transaction failed was acknowledged")
	}
	if _, err := conn.Exec(ctx, `DELETE FROM versions WHERE repo = $1 AND version = 2`, repo); err != nil {
		t.Fatal(err)
	}
	if res, err := b.Apply(ctx, putWrite(repo, "k.md", "three")); err != nil || res.State.Version != 2 {
		t.Fatalf("replica b's write: version %d, %v", res.State.Version, err)
	}
	res, err := a.Apply(ctx, putWrite(repo, "j.md", "four"))
	if err != nil {
		t.Fatal(err)
	}
	want := protocol.DatasetChecksum(map[string]string{"j.md": protocol.EntryChecksum([]byte("four")), "k.md": protocol.EntryChecksum([]byte("three"))})
	if res.State.Version != 3 || res.State.Checksum != want {
		t.Errorf("after the failed group and b's write: version %d checksum %s, want 3 %s", res.State.Version, res.State.Checksum, want)
	}
}

// TestGuardedWriteAfterOtherReplica: a process that planned a write
// against the state it last committed finds that another replica wrote
// since: the write is not applied against the old state (a conditional
// one on the old checksum is refused with the current one, an
// unconditional one keeps the other replica's change).
func TestGuardedWriteAfterOtherReplica(t *testing.T) {
	_, a, b := twoReplicas(t)
	ctx := context.Background()
	const repo = "acme/guard"
	first, err := a.Apply(ctx, putWrite(repo, "k.md", "one"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.Apply(ctx, putWrite(repo, "k.md", "two"))
	if err != nil {
		t.Fatal(err)
	}
	stale := putWrite(repo, "j.md", "stale")
	stale.IfMatch = server.TagList(first.State.Checksum)
	_, err = a.Apply(ctx, stale)
	var pe *server.PreconditionError
	if !errors.As(err, &pe) || pe.Checksum != second.State.Checksum {
		t.Fatalf("write on a's stale checksum: %v; want a precondition error with b's checksum", err)
	}
	fresh := putWrite(repo, "j.md", "fresh")
	fresh.IfMatch = server.TagList(second.State.Checksum)
	res, err := a.Apply(ctx, fresh)
	if err != nil {
		t.Fatalf("write on b's checksum through a: %v", err)
	}
	want := protocol.DatasetChecksum(map[string]string{"j.md": protocol.EntryChecksum([]byte("fresh")), "k.md": protocol.EntryChecksum([]byte("two"))})
	if res.State.Version != 3 || res.State.Checksum != want {
		t.Errorf("after b's write: version %d checksum %s, want 3 %s", res.State.Version, res.State.Checksum, want)
	}
	if _, err := b.Apply(ctx, putWrite(repo, "k.md", "three")); err != nil {
		t.Fatal(err)
	}
	res, err = a.Apply(ctx, putWrite(repo, "l.md", "four"))
	want = protocol.DatasetChecksum(map[string]string{"j.md": protocol.EntryChecksum([]byte("fresh")),
		"k.md": protocol.EntryChecksum([]byte("three")), "l.md": protocol.EntryChecksum([]byte("four"))})
	if err != nil || res.State.Version != 5 || res.State.Checksum != want {
		t.Errorf("unconditional write through a after b's: version %d checksum %s, %v; want 5 %s", res.State.Version, res.State.Checksum, err, want)
	}
}

// TestGroupSameKey: writes of one group that put, delete and put again one
// key leave the row the last of them made, one revision each.
func TestGroupSameKey(t *testing.T) {
	db := open(t, freshURL(t, pgtest.URL(t)), postgres.Options{Migrate: true})
	ctx := context.Background()
	const repo = "acme/same"
	del := func(key string) server.Write {
		return server.Write{Repo: repo, Author: "t", At: time.Now(), Deletes: []string{key}}
	}
	ws := []server.Write{putWrite(repo, "k.md", "one"), putWrite(repo, "j.md", "jay"), del("k.md"),
		putWrite(repo, "k.md", "two"), del("j.md"), putWrite(repo, "j.md", "jay")}
	// A write that changes nothing, and one refused, in the same group.
	stale := putWrite(repo, "x.md", "x")
	stale.IfMatch = server.TagList("sha256:0")
	ws = append(ws, putWrite(repo, "k.md", "two"), stale)
	res, errs := postgres.ApplyGroup(db, ws)
	for i, err := range errs[:len(errs)-1] {
		if err != nil || res[i].State.Version != int64(min(i+1, 6)) {
			t.Errorf("write %d: version %d, %v", i, res[i].State.Version, err)
		}
	}
	var pe *server.PreconditionError
	if !errors.As(errs[len(errs)-1], &pe) || pe.Checksum != res[5].State.Checksum {
		t.Errorf("refused write: %v", errs[len(errs)-1])
	}
	snap, err := db.Snapshot(ctx, repo, server.ReadOptions{WithContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Live) != 2 || snap.Live[0].Key != "j.md" || snap.Live[0].Content != "jay" || snap.Live[0].Version != 6 ||
		snap.Live[1].Key != "k.md" || snap.Live[1].Content != "two" || snap.Live[1].Version != 4 || len(snap.Deleted) != 0 {
		t.Errorf("after the group: live %+v, deleted %+v", snap.Live, snap.Deleted)
	}
	want := protocol.DatasetChecksum(map[string]string{"j.md": protocol.EntryChecksum([]byte("jay")), "k.md": protocol.EntryChecksum([]byte("two"))})
	if snap.Version != 6 || snap.Checksum != want {
		t.Errorf("state: version %d checksum %s, want 6 %s", snap.Version, snap.Checksum, want)
	}
	for _, k := range []string{"k.md", "j.md"} {
		h, err := db.History(ctx, repo, k, 0, 0)
		if err != nil || len(h) != 3 {
			t.Errorf("history of %s: %+v, %v; want 3 revisions", k, h, err)
		}
	}
	evs, err := db.Events(ctx, repo, 0, 10)
	if err != nil || len(evs) != 6 {
		t.Fatalf("events: %d, %v", len(evs), err)
	}
	for i, ev := range evs {
		if ev.Version != int64(i+1) || ev.Checksum != res[i].State.Checksum {
			t.Errorf("event %d: version %d checksum %s, want %d %s", i, ev.Version, ev.Checksum, i+1, res[i].State.Checksum)
		}
	}
	// A tombstone left by the last write of a group.
	if _, errs := postgres.ApplyGroup(db, []server.Write{putWrite(repo, "z.md", "zed"), del("z.md")}); errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	snap, err = db.Snapshot(ctx, repo, server.ReadOptions{})
	if err != nil || len(snap.Deleted) != 1 || snap.Deleted[0].Key != "z.md" || snap.Deleted[0].Version != 8 {
		t.Errorf("tombstone of a key put and deleted in one group: %+v, %v", snap.Deleted, err)
	}
}

// TestPreconditionLetPassThenRefused: a replica lets pass, without reading,
// a write whose If-Match names the state it last committed; when another
// replica wrote since, the write itself is refused with the current
// checksum and changes nothing (the lost update the early check would
// otherwise let through).
func TestPreconditionLetPassThenRefused(t *testing.T) {
	_, a, b := twoReplicas(t)
	ctx := context.Background()
	const repo = "acme/letpass"
	first, err := a.Apply(ctx, putWrite(repo, "a.md", "a"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.Apply(ctx, putWrite(repo, "b.md", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Precondition(ctx, repo, server.Preconditions{IfMatch: server.TagList(first.State.Checksum)}); err != nil {
		t.Logf("the early check read the state: %v", err) // allowed, not required
	}
	w := putWrite(repo, "c.md", "c")
	w.IfMatch = server.TagList(first.State.Checksum)
	_, err = a.Apply(ctx, w)
	var pe *server.PreconditionError
	if !errors.As(err, &pe) || pe.Checksum != second.State.Checksum {
		t.Fatalf("a stale conditional write after another replica's: %v; want a *PreconditionError with %s", err, second.State.Checksum)
	}
	st, err := b.RepoState(ctx, repo)
	if err != nil || st.Version != 2 {
		t.Errorf("after the refused write: %+v, %v; want version 2", st, err)
	}
}

// TestPreconditionWaitsForWriteInFlight: a conditional write naming the
// state a write already in flight was conditioned on waits for it and, once
// it commits, is refused with the new checksum before its body is read
// (not let pass, decoded and refused by the same commit afterwards).
func TestPreconditionWaitsForWriteInFlight(t *testing.T) {
	url, a, _ := twoReplicas(t)
	ctx := context.Background()
	const repo = "acme/inflight"
	first, err := a.Apply(ctx, putWrite(repo, "a.md", "a"))
	if err != nil {
		t.Fatal(err)
	}
	blocker, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Close(ctx)
	tx, err := blocker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // released below
	if _, err := tx.Exec(ctx, `SELECT 1 FROM repos WHERE slug = $1 FOR UPDATE`, repo); err != nil {
		t.Fatal(err)
	}
	w := putWrite(repo, "b.md", "b")
	w.IfMatch = server.TagList(first.State.Checksum)
	applied := make(chan server.WriteResult, 1)
	go func() {
		res, err := a.Apply(ctx, w)
		if err != nil {
			t.Error(err)
		}
		applied <- res
	}()
	for { // until the write waits for the row lock
		var n int
		if err := blocker.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	checked := make(chan error, 1)
	go func() {
		checked <- a.Precondition(ctx, repo, server.Preconditions{IfMatch: server.TagList(first.State.Checksum)})
	}()
	select {
	case err := <-checked:
		t.Fatalf("the check answered %v while a write on the same state was in flight", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	res := <-applied
	var pe *server.PreconditionError
	if err := <-checked; !errors.As(err, &pe) || pe.Checksum != res.State.Checksum {
		t.Errorf("after the write in flight committed %s, the check answered %v; want a *PreconditionError with it", res.State.Checksum, err)
	}
}
