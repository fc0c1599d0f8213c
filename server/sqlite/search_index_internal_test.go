package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/searchtext"
	"github.com/teammem/teammem/server/storetest"
)

// TestIndexBatchInRowidOrder: a batch re-indexing keys written before, in
// the order their puts came (here the newest rowid first), writes one FTS5
// segment, not one per put: apply runs the FTS5 statements in rowid
// order, since FTS5 writes its pending terms out whenever a row comes
// below the last one written. FTS5's write counter counts each segment
// written and each replaced row's tombstone: n + 1 (in put order it was
// 2n).
func TestIndexBatchInRowidOrder(t *testing.T) {
	ctx := context.Background()
	db := openAt(t, "")
	if err := WaitBackfill(db); err != nil {
		t.Fatal(err)
	}
	const repo, n = "acme/api", 30
	key := func(i int) string { return fmt.Sprintf("k%02d.md", i) }
	var puts []server.Put
	for i := range n {
		c := fmt.Sprintf("note %d about deploys", i)
		puts = append(puts, server.Put{Key: key(i), Content: c, Checksum: "sha256:x"})
	}
	if _, err := db.Apply(ctx, server.Write{Repo: repo, Puts: puts, Author: "t"}); err != nil {
		t.Fatal(err)
	}
	before := segmentsWritten(t, db)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var changes []indexChange
	for i := n - 1; i >= 0; i-- {
		changes = append(changes, indexChange{repo: repo, key: key(i), e: searchtext.EntryOf(key(i), fmt.Sprintf("note %d about releases", i))})
	}
	if err := db.writer.stmts.in(ctx, tx).search.apply(ctx, changes); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if after := segmentsWritten(t, db); after-before > n+1 {
		t.Errorf("re-indexing %d entries in one batch made %d FTS5 writes; want %d (a tombstone each and one segment)", n, after-before, n+1)
	}
}

// segmentsWritten reads the write counter of search_fts's structure record
// (FTS5 counts every segment and tombstone write): after the cookie and
// the contentless-delete marker, the varints nLevel, nSegment,
// nWriteCounter.
func segmentsWritten(t *testing.T, db *DB) uint64 {
	t.Helper()
	var rec []byte
	if err := db.read.QueryRowContext(context.Background(), `SELECT block FROM search_fts_data WHERE id = 10`).Scan(&rec); err != nil {
		t.Fatal(err)
	}
	i := 4
	if len(rec) >= 8 && string(rec[4:8]) == "\xff\x00\x00\x01" {
		i = 8
	}
	var v [3]uint64
	for k := range v {
		n := 0
		v[k], n = sqliteVarint(rec[i:])
		if n == 0 {
			t.Fatalf("structure record %x", rec)
		}
		i += n
	}
	return v[2]
}

// sqliteVarint decodes SQLite's varint (big-endian groups of 7 bits, a
// full ninth byte); n is 0 when b ends first.
func sqliteVarint(b []byte) (v uint64, n int) {
	for i := range min(len(b), 9) {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// TestPutsMarkedThenIndexedOnce: 50 puts of one key write nothing to the
// FTS5 index, only a mark; the search after them indexes the key once,
// with its last content, and sees it. A key deleted before the search is
// not found; marks survive a restart and are indexed by the first search.
func TestPutsMarkedThenIndexedOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	db := openAt(t, path)
	const repo = "acme/api"
	put := func(db *DB, key, content string) { t.Helper(); putNotes(t, db, repo, key, content) }
	find := func(db *DB, word string) []string { t.Helper(); return storetest.SearchKeys(t, db, repo, word) }
	put(db, "seed.md", "seed")
	find(db, "seed") // the index exists
	before := segmentsWritten(t, db)
	for i := range 50 {
		put(db, "deploy.md", fmt.Sprintf("deploy step%d", i))
	}
	put(db, "gone.md", "deploy, deleted before any search")
	if _, err := db.Apply(ctx, server.Write{Repo: repo, Author: "t", Deletes: []string{"gone.md"}}); err != nil {
		t.Fatal(err)
	}
	if got := segmentsWritten(t, db); got != before {
		t.Fatalf("51 puts and a delete wrote to the FTS5 index %d times before a search; want none", got-before)
	}
	if n := db.pending.Load(); n != 2 {
		t.Fatalf("%d keys marked, want 2", n)
	}
	if got := find(db, "step49"); len(got) != 1 || got[0] != "deploy.md" {
		t.Errorf("step49: %v, want deploy.md", got)
	}
	if got := find(db, "step48"); len(got) != 0 {
		t.Errorf("step48 (replaced): %v, want nothing", got)
	}
	if got := find(db, "deleted"); len(got) != 0 {
		t.Errorf("deleted: %v, want nothing", got)
	}
	if got := segmentsWritten(t, db) - before; got > 2 {
		t.Errorf("the search indexed the marked keys with %d FTS5 writes; want a segment (and a tombstone) at most", got)
	}
	if n := db.pending.Load(); n != 0 {
		t.Errorf("%d keys still marked after the search", n)
	}

	put(db, "later.md", "rollback plan")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openAt(t, path)
	if n := db.pending.Load(); n != 1 {
		t.Errorf("after a restart %d keys marked, want 1", n)
	}
	if got := find(db, "rollback"); len(got) != 1 || got[0] != "later.md" {
		t.Errorf("rollback after a restart: %v, want later.md", got)
	}

	db.pending.Store(3) // a count gone wrong, no mark in the table
	find(db, "rollback")
	if n := db.pending.Load(); n != 0 {
		t.Errorf("a count of 3 with no mark left is %d after a search; want it set right (0)", n)
	}
}

// TestWALRewindWaitsLittleForReaders: while a reader keeps an older
// snapshot open, the WAL cannot be rewound; the writer tries (between two
// transactions, holding the writes back), gives up after rewindWait
// instead of the connections' 10 s busy timeout, and the writes go on.
// Once the reader ends, the WAL is rewound.
func TestWALRewindWaitsLittleForReaders(t *testing.T) {
	old := walRestartFrames
	walRestartFrames = 64
	t.Cleanup(func() { walRestartFrames = old })
	ctx := context.Background()
	db := openAt(t, "")
	write := func(i int) {
		putNotes(t, db, "acme/wal", fmt.Sprintf("k%d.md", i%8), fmt.Sprintf("write %d\n%s", i, strings.Repeat("wal ", 500)))
	}
	write(0)
	reader, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.QueryRowContext(ctx, `SELECT count(*) FROM entries`).Scan(&n); err != nil { // the snapshot starts
		t.Fatal(err)
	}
	start := time.Now()
	for i := 1; db.writer.rewindBusy.Load() < 2; i++ {
		write(i)
		if time.Since(start) > 20*time.Second {
			t.Fatalf("no rewind was tried in 20 s of writes with a reader open (%d tried and refused)", db.writer.rewindBusy.Load())
		}
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("the writes took %v past 2 refused rewinds; a rewind waits for readers %v at most", d, rewindWait)
	}
	if r := db.writer.rewound.Load(); r != 0 {
		t.Errorf("the WAL was rewound %d times under an open reader", r)
	}
	_ = reader.Rollback()
	for i := 0; db.writer.rewound.Load() == 0; i++ {
		write(i)
		if time.Since(start) > 40*time.Second {
			t.Fatal("the WAL was not rewound after the reader ended")
		}
	}
}

// TestMarksIndexedDuringABurst: writes that never pause for mergeIdle
// still get their keys indexed once maxPending wait, so the first search
// after a long burst has a bounded amount of indexing to do.
func TestMarksIndexedDuringABurst(t *testing.T) {
	db := openAt(t, "")
	const puts, keysPerPut = 30, 100
	most := int64(0)
	for p := range puts {
		var kc []string
		for k := range keysPerPut {
			kc = append(kc, fmt.Sprintf("p%02d/k%03d.md", p, k), fmt.Sprintf("burst note %d of put %d", k, p))
		}
		putNotes(t, db, "acme/burst", kc...)
		most = max(most, db.pending.Load())
		time.Sleep(30 * time.Millisecond) // a burst: never the pause of mergeIdle
	}
	if limit := int64(maxPending + 3*keysPerPut); most > limit {
		t.Errorf("%d keys waited for the index during a burst of %d; want at most about %d", most, puts*keysPerPut, limit)
	}
	if n := db.pending.Load(); n > maxPending+keysPerPut {
		t.Errorf("%d keys wait at the burst's end", n)
	}
}

// TestBurstRewritingKeysIndexesOnce: a burst that writes 1,000 keys over
// and over marks each once and indexes none of them while it lasts (each
// would otherwise be indexed once per write); the search after it sees the
// last content of every key.
func TestBurstRewritingKeysIndexesOnce(t *testing.T) {
	db := openAt(t, "")
	const keys, perPut, rounds = 1000, 100, 3
	for r := range rounds {
		for start := 0; start < keys; start += perPut {
			var kc []string
			for k := start; k < start+perPut; k++ {
				kc = append(kc, fmt.Sprintf("k%04d.md", k), fmt.Sprintf("note %d round%d", k, r))
			}
			putNotes(t, db, "acme/rotate", kc...)
		}
	}
	if batches, _ := db.indexBatches.Get(); batches != 0 {
		t.Errorf("%d indexing jobs ran during the burst; want none", batches)
	}
	if n := db.pending.Load(); n != keys {
		t.Errorf("%d keys marked after the burst; want each of the %d once", n, keys)
	}
	hits, err := db.Search(context.Background(), server.SearchRequest{Terms: []server.SearchTerm{{Forms: [][]string{{"round2"}}}}, Repos: []string{"acme/rotate"}, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		t.Error("the search after the burst found none of the last round's content")
	}
}

// TestLongBurstOnFewKeysIndexesNone: a burst that rewrites the same keys
// for longer than mergeIdle, without a pause, indexes none of them while
// it lasts: once every key is marked its writes add no mark, but they are
// still writes, and the merger must not take their silence for a pause.
func TestLongBurstOnFewKeysIndexesNone(t *testing.T) {
	db := openAt(t, "")
	for start, i := time.Now(), 0; time.Since(start) < mergeIdle+mergeIdle/2; i++ {
		putNotes(t, db, "acme/long", fmt.Sprintf("k%d.md", i%10), fmt.Sprintf("note %d", i))
		time.Sleep(20 * time.Millisecond) // a burst: never the pause of mergeIdle
	}
	if batches, _ := db.indexBatches.Get(); batches != 0 {
		t.Errorf("%d indexing jobs ran during the burst; want none", batches)
	}
	if m := db.writer.merged.Load(); m != 0 {
		t.Errorf("%d merge steps ran during the burst; want none", m)
	}
	if n := db.pending.Load(); n != 10 {
		t.Errorf("%d keys marked after the burst; want each of the 10 once", n)
	}
}

// TestIndexMergedAtOpen: segments a run left unmerged (it ended before
// the writes paused) are merged by the next run, which writes nothing.
func TestIndexMergedAtOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	db := openAt(t, path)
	for i := range 20 { // each search indexes one write: a segment each
		putNotes(t, db, "acme/api", fmt.Sprintf("k%02d.md", i), fmt.Sprintf("note %d", i))
		if _, err := db.Search(ctx, server.SearchRequest{Terms: []server.SearchTerm{{Forms: [][]string{{"note"}}}}, Repos: []string{"acme/api"}, Limit: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil { // before mergeIdle
		t.Fatal(err)
	}
	db = openAt(t, path)
	for start := time.Now(); db.writer.merged.Load() == 0; time.Sleep(100 * time.Millisecond) {
		if time.Since(start) > 15*time.Second {
			t.Fatal("the index left in 20 segments was not merged in 15 s after open")
		}
	}
}

// openAt opens the store at path (a new file in the test's folder when
// ""), migrating it; it is closed when the test ends (Close may come
// before: a second Close does nothing).
// TestWriteBeforeBackfillReachesIt: an entry numbered by migration 13 but
// not indexed yet (its FTS5 rows absent) and written again, or deleted,
// moves out of the backfill's way: the write's FTS5 delete of a row that
// was never there changes nothing, and the index stays whole. A backfill
// and a put of the same entry in one batch end with the put's words.
func TestWriteBeforeBackfillReachesIt(t *testing.T) {
	ctx := context.Background()
	db := openAt(t, "")
	const repo = "acme/api"
	putNotes(t, db, repo, "a.md", "walrus early", "b.md", "walrus early", "c.md", "walrus early")
	storetest.SearchKeys(t, db, repo, "walrus") // indexed
	for _, q := range []string{`DELETE FROM search_fts`, `DELETE FROM search_titles_fts`, `DELETE FROM search_names_fts`} {
		if _, err := db.write.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	putNotes(t, db, repo, "a.md", "walrus late")
	if _, err := db.Apply(ctx, server.Write{Repo: repo, Author: "t", Deletes: []string{"b.md"}}); err != nil {
		t.Fatal(err)
	}
	if got := storetest.SearchKeys(t, db, repo, "late"); !slices.Equal(got, []string{"a.md"}) {
		t.Errorf("late: %q, want a.md", got)
	}
	if got := storetest.SearchKeys(t, db, repo, "walrus"); !slices.Equal(got, []string{"a.md"}) {
		t.Errorf("walrus: %q, want a.md alone (c.md is not indexed yet, b.md is deleted)", got)
	}
	// c.md: the backfill's words and a put's, in one batch.
	var doc int64
	if err := db.read.QueryRowContext(ctx, `SELECT id FROM search_docs WHERE key = 'c.md'`).Scan(&doc); err != nil {
		t.Fatal(err)
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.writer.stmts.in(ctx, tx).search.apply(ctx, []indexChange{
		{repo: repo, key: "c.md", doc: doc, e: searchtext.EntryOf("c.md", "walrus early")},
		{repo: repo, key: "c.md", e: searchtext.EntryOf("c.md", "walrus later")},
	}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := storetest.SearchKeys(t, db, repo, "walrus"); !slices.Equal(got, []string{"c.md", "a.md"}) {
		t.Errorf("walrus: %q, want c.md (the newest) and a.md", got)
	}
	if got := storetest.SearchKeys(t, db, repo, "early"); len(got) != 0 {
		t.Errorf("early: %q, want nothing", got)
	}
	for _, table := range []string{"search_fts", "search_titles_fts", "search_names_fts"} {
		if _, err := db.write.ExecContext(ctx, `INSERT INTO `+table+` (`+table+`, rank) VALUES ('integrity-check', 0)`); err != nil {
			t.Errorf("%s: %v", table, err)
		}
	}
}

func openAt(t *testing.T, path string) *DB {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "teammem.db")
	}
	db, err := Open(context.Background(), path, Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// putNotes writes the entries (key, content, key, content...) to repo in
// one write.
func putNotes(t *testing.T, db *DB, repo string, kc ...string) {
	t.Helper()
	var puts []server.Put
	for i := 0; i+1 < len(kc); i += 2 {
		puts = append(puts, server.Put{Key: kc[i], Content: kc[i+1], Checksum: protocol.EntryChecksum([]byte(kc[i+1]))})
	}
	if _, err := db.Apply(context.Background(), server.Write{Repo: repo, Author: "t", Puts: puts}); err != nil {
		t.Fatal(err)
	}
}
