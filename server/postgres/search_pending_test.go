package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/storetest"
	"github.com/teammem/teammem/testkit/pgtest"
)

// apply applies w and fails the test on an error.
func apply(t *testing.T, db *postgres.DB, w server.Write) {
	t.Helper()
	if _, err := db.Apply(context.Background(), w); err != nil {
		t.Fatal(err)
	}
}

// count returns the one number query answers.
func count(t *testing.T, conn *pgx.Conn, query string) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// connect opens a connection to url, closed when the test ends.
func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// waitCount waits up to 10 s for query to answer at most want.
func waitCount(t *testing.T, conn *pgx.Conn, query string, want int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := count(t, conn, query)
		if n <= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d after 10 s, want at most %d", what, n, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const countMarks = `SELECT count(*) FROM search_pending`

// TestPutsMarkedThenIndexed: a write stores no vector, only a mark per
// key, whatever the number of writes; the next search indexes the marked
// keys with their last content (a replaced text and a deleted key are not
// found, an index line is) and drops the marks; marks left by a process
// that ended are indexed by the next one at open.
func TestPutsMarkedThenIndexed(t *testing.T) {
	postgres.SetPendingPause(t, time.Hour) // no background indexing
	url := freshURL(t, pgtest.URL(t))
	db := open(t, url, postgres.Options{Migrate: true})
	conn := connect(t, url)
	const repo = "acme/api"
	apply(t, db, putWrite(repo, "seed.md", "seed"))
	if got := storetest.SearchKeys(t, db, repo, "seed"); !slices.Equal(got, []string{"seed.md"}) {
		t.Fatalf("seed: %v", got)
	}
	for i := range 50 {
		apply(t, db, putWrite(repo, "deploy.md", fmt.Sprintf("deploy step%d", i)))
	}
	apply(t, db, putWrite(repo, "MEMORY.md", "- [Deploy](deploy.md) — the release train"))
	apply(t, db, putWrite(repo, "gone.md", "deploy, deleted before any search"))
	apply(t, db, server.Write{Repo: repo, Author: "t", Deletes: []string{"gone.md"}})
	if n := count(t, conn, countMarks); n != 3 {
		t.Fatalf("%d keys marked, want 3 (deploy.md, MEMORY.md, gone.md)", n)
	}
	if n := count(t, conn, `SELECT count(*) FROM entries WHERE search IS NOT NULL AND key <> 'seed.md'`); n != 0 {
		t.Fatalf("%d entries have vectors before a search; want none", n)
	}
	if n := count(t, conn, `SELECT count(*) FROM search_links`); n != 0 {
		t.Fatalf("%d index lines stored before a search; want none", n)
	}
	if got := storetest.SearchKeys(t, db, repo, "step49"); !slices.Equal(got, []string{"deploy.md"}) {
		t.Errorf("step49: %v, want deploy.md", got)
	}
	if got := storetest.SearchKeys(t, db, repo, "step48"); len(got) != 0 {
		t.Errorf("step48 (replaced): %v, want nothing", got)
	}
	if got := storetest.SearchKeys(t, db, repo, "deleted"); len(got) != 0 {
		t.Errorf("deleted: %v, want nothing", got)
	}
	if got := storetest.SearchKeys(t, db, repo, "train"); !slices.Contains(got, "deploy.md") {
		t.Errorf("train (the index line): %v, want deploy.md", got)
	}
	if n := count(t, conn, countMarks); n != 0 {
		t.Errorf("%d keys still marked after a search", n)
	}
	// A search of every repository indexes the marks of the others first.
	apply(t, db, putWrite("acme/web", "ui.md", "the widget"))
	hits, err := db.Search(context.Background(), server.SearchRequest{Terms: []server.SearchTerm{{Forms: [][]string{{"widget"}}}}, AllRepos: true,
		Limit: 10})
	if err != nil || len(hits) != 1 || hits[0].Repo != "acme/web" {
		t.Errorf("widget in every repository: %v, %v; want acme/web:ui.md", hits, err)
	}

	apply(t, db, putWrite(repo, "later.md", "rollback plan"))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, conn, countMarks); n != 1 {
		t.Fatalf("after close %d keys marked, want 1", n)
	}
	open(t, url, postgres.Options{})
	waitCount(t, conn, countMarks, 0, "marks left by a closed process, after the next opened")
	if n := count(t, conn, `SELECT count(*) FROM entries WHERE key = 'later.md' AND search IS NOT NULL`); n != 1 {
		t.Errorf("later.md not indexed at open")
	}
}

// TestMarksIndexedWhenWritesPause: without any search, the keys a
// process's writes marked are indexed once its writes pause.
func TestMarksIndexedWhenWritesPause(t *testing.T) {
	postgres.SetPendingPause(t, 50*time.Millisecond)
	url := freshURL(t, pgtest.URL(t))
	db := open(t, url, postgres.Options{Migrate: true})
	conn := connect(t, url)
	for _, k := range []string{"a.md", "b.md", "c.md"} {
		apply(t, db, putWrite("acme/api", k, "pause "+k))
	}
	waitCount(t, conn, countMarks, 0, "keys marked after the writes paused")
	if n := count(t, conn, `SELECT count(*) FROM entries WHERE search IS NULL`); n != 0 {
		t.Errorf("%d entries without vectors after the writes paused", n)
	}
}

// openPaused opens a fresh database whose writes never pause long enough
// for their marks to be indexed, and a connection to it.
func openPaused(t *testing.T) (*postgres.DB, *pgx.Conn) {
	t.Helper()
	postgres.SetPendingPause(t, time.Hour)
	url := freshURL(t, pgtest.URL(t))
	return open(t, url, postgres.Options{Migrate: true}), connect(t, url)
}

// hundredPuts returns the puts of keys k<from>.md to k<from+99>.md, with
// content(k) each.
func hundredPuts(from int, content func(int) string) []server.Put {
	var puts []server.Put
	for k := from; k < from+100; k++ {
		puts = append(puts, putWrite("", fmt.Sprintf("k%04d.md", k), content(k)).Puts[0])
	}
	return puts
}

// TestMarksIndexedDuringABurst: writes that never pause get their keys
// indexed once maxPending (2,000) wait, in all repositories: after 2,400
// new keys in writes of 100 to three repositories in turn, at most 400
// are still marked.
func TestMarksIndexedDuringABurst(t *testing.T) {
	db, conn := openPaused(t)
	for w := range 24 {
		puts := hundredPuts(w*100, func(int) string { return "burst" })
		apply(t, db, server.Write{Repo: fmt.Sprintf("acme/r%d", w%3), Author: "t", At: time.Now(), Puts: puts})
	}
	waitCount(t, conn, countMarks, 400, "keys marked during a burst of 2,400")
}

// TestBurstRewritingKeysIndexesNone: a burst that writes the same 1,000
// keys over and over, without a pause, marks each once and indexes none
// of them while it lasts (with a limit of 500 marks, each write's key was
// indexed again).
func TestBurstRewritingKeysIndexesNone(t *testing.T) {
	db, conn := openPaused(t)
	for r := range 3 {
		for start := 0; start < 1000; start += 100 {
			puts := hundredPuts(start, func(k int) string { return fmt.Sprintf("note %d round%d", k, r) })
			apply(t, db, server.Write{Repo: "acme/rotate", Author: "t", At: time.Now(), Puts: puts})
		}
	}
	time.Sleep(200 * time.Millisecond) // an indexing the writes set off would have begun
	if n := count(t, conn, countMarks); n != 1000 {
		t.Errorf("%d keys marked after the burst; want each of the 1,000, none indexed", n)
	}
}

// TestSearchOnOtherReplicaSeesWrite: a write acknowledged by one replica
// is found, with its content and nothing older, by a search on another,
// while both replicas' indexers run after every pause of 1 ms, a third
// writer keeps writing the repository, and searches on the first replica
// index the same marks: the indexing of a key never interleaves with a
// write of it.
func TestSearchOnOtherReplicaSeesWrite(t *testing.T) {
	postgres.SetPendingPause(t, time.Millisecond)
	_, a, b := twoReplicas(t)
	const repo = "acme/race"
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Go(func() { // another writer of the repository
		for i := 0; ctx.Err() == nil; i++ {
			if _, err := b.Apply(ctx, putWrite(repo, "other.md", fmt.Sprintf("other%d", i))); err != nil && ctx.Err() == nil {
				errs <- err
				return
			}
		}
	})
	wg.Go(func() { // searches racing to index the same marks
		for ctx.Err() == nil {
			if _, err := a.Search(ctx, server.SearchRequest{Terms: []server.SearchTerm{{Forms: [][]string{{"deploy"}}}}, Repos: []string{repo},
				Limit: 10}); err != nil && ctx.Err() == nil {
				errs <- err
				return
			}
		}
	})
	for i := range 60 {
		apply(t, a, putWrite(repo, "deploy.md", fmt.Sprintf("deploy v%d", i)))
		if got := storetest.SearchKeys(t, b, repo, fmt.Sprintf("v%d", i)); !slices.Equal(got, []string{"deploy.md"}) {
			t.Fatalf("write %d acknowledged on one replica: the other finds %v, want deploy.md", i, got)
		}
		if i > 0 {
			if got := storetest.SearchKeys(t, b, repo, fmt.Sprintf("v%d", i-1)); len(got) != 0 {
				t.Fatalf("write %d acknowledged: the other replica still finds the text it replaced in %v", i, got)
			}
		}
	}
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestRollBackWithMarks: migrating down past migration 10 while keys are
// marked leaves what the build before reads as current: a deleted marked
// entry has no vector, a marked index no lines, and the backfill indexes
// every live entry again.
func TestRollBackWithMarks(t *testing.T) {
	postgres.SetPendingPause(t, time.Hour)
	ctx := context.Background()
	url := freshURL(t, pgtest.URL(t))
	db := open(t, url, postgres.Options{Migrate: true})
	conn := connect(t, url)
	const repo = "acme/api"
	apply(t, db, putWrite(repo, "MEMORY.md", "- [Old](old.md) — the old train"))
	apply(t, db, putWrite(repo, "old.md", "an old note"))
	storetest.SearchKeys(t, db, repo, "old") // indexes them
	apply(t, db, putWrite(repo, "MEMORY.md", "- [New](new.md) — the new plan"))
	apply(t, db, server.Write{Repo: repo, Author: "t", Deletes: []string{"old.md"}})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, conn, countMarks); n != 2 {
		t.Fatalf("%d keys marked, want 2", n)
	}
	latest, _ := migrations.Latest(migrations.Postgres)
	if v, _, err := postgres.Migrate(ctx, url, "down", int(latest)-9); err != nil || v != 9 {
		t.Fatalf("roll back to version 9: version %d, %v", v, err)
	}
	if n := count(t, conn, `SELECT count(*) FROM entries WHERE deleted AND search IS NOT NULL`); n != 0 {
		t.Errorf("%d deleted entries keep a vector", n)
	}
	if n := count(t, conn, `SELECT count(*) FROM search_links`); n != 0 {
		t.Errorf("%d lines of a marked index kept", n)
	}
	if n := count(t, conn, `SELECT count(*) FROM search_backfill WHERE repo = '' AND key = ''`); n != 1 {
		t.Errorf("the backfill does not start again from the first entry")
	}
}

// TestEraseDropsMarks: erasing a repository drops its marks with its
// entries, and leaves another repository's.
func TestEraseDropsMarks(t *testing.T) {
	postgres.SetPendingPause(t, time.Hour)
	url := freshURL(t, pgtest.URL(t))
	db := open(t, url, postgres.Options{Migrate: true})
	conn := connect(t, url)
	apply(t, db, putWrite("acme/gone", "a.md", "erased"))
	apply(t, db, putWrite("acme/kept", "b.md", "kept"))
	if _, _, err := db.EraseRepo(context.Background(), "acme/gone"); err != nil {
		t.Fatal(err)
	}
	if n := count(t, conn, `SELECT count(*) FROM search_pending WHERE repo = 'acme/gone'`); n != 0 {
		t.Errorf("%d marks of the erased repository left", n)
	}
	if n := count(t, conn, `SELECT count(*) FROM search_pending WHERE repo = 'acme/kept'`); n != 1 {
		t.Errorf("%d marks of the other repository, want 1", n)
	}
}
