package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/sqlite"
)

// TestSearchBackfill: entries written before the search migration (here:
// their index rows removed and the backfill cursor set, as migration 6
// leaves a database holding data) are indexed after Open, in several
// batches, and found; links of an index too.
func TestSearchBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "teammem.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	const n = 450 // more than two batches
	for _, repo := range []string{"acme/a", "acme/b"} {
		w := server.Write{Repo: repo, Author: "alice", At: time.Now()}
		for i := range n {
			c := fmt.Sprintf("entry %d of %s, the word backfilled", i, repo)
			w.Puts = append(w.Puts, server.Put{Key: fmt.Sprintf("k%04d.md", i), Content: c, Checksum: protocol.EntryChecksum([]byte(c))})
		}
		idx := "- [one](k0001.md) — wombat\n"
		w.Puts = append([]server.Put{{Key: "MEMORY.md", Content: idx, Checksum: protocol.EntryChecksum([]byte(idx))}}, w.Puts...)
		if _, err := db.Apply(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DELETE FROM search_fts`, `DELETE FROM search_docs`, `DELETE FROM search_links_fts`,
		`DELETE FROM search_links`, `INSERT INTO search_backfill (id, repo, key) VALUES (1, '', '')`} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_ = raw.Close()
	db = open2(t, path)
	if err := sqlite.WaitBackfill(db); err != nil {
		t.Fatalf("backfill: %v", err)
	}
	hits, err := db.Search(ctx, server.SearchRequest{Terms: []server.SearchTerm{{"backfilled"}}, AllRepos: true, Limit: 2 * n})
	if err != nil || len(hits) != 2*n {
		t.Fatalf("Search after backfill: %d hits, %v; want %d", len(hits), err, 2*n)
	}
	hits, err = db.Search(ctx, server.SearchRequest{Terms: []server.SearchTerm{{"wombat"}}, Repos: []string{"acme/b"}, Limit: 10})
	if err != nil || len(hits) != 2 || hits[0].Key != "k0001.md" {
		t.Fatalf("Search of an index line after backfill: %+v, %v", hits, err)
	}
}

func open2(t *testing.T, path string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}
