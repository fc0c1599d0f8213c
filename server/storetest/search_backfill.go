package storetest

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/teammem/teammem/server"
)

// backfillEntries is how many entries BackfillWrite writes per repository:
// more than two batches of either store's backfill.
const backfillEntries = 450

// BackfillWrite writes the data BackfillFound looks for. A store's test
// writes it, removes the store's search index as a database written before
// the search migration has none (and sets its backfill cursor, as the
// migration does), reopens the store, waits for its backfill and calls
// BackfillFound.
func BackfillWrite(t *testing.T, s server.Store) {
	for _, repo := range []string{"acme/a", "acme/b"} {
		c := contents{"MEMORY.md": "- [one](k0001.md) — wombat\n"}
		for i := range backfillEntries {
			c[fmt.Sprintf("k%04d.md", i)] = fmt.Sprintf("entry %d of %s, the word backfilled", i, repo)
		}
		apply(t, s, write(repo, at(0), c))
		apply(t, s, write(repo, at(1), nil, "k0002.md"))
	}
}

// BackfillFound checks that every live entry BackfillWrite wrote is found,
// and the entry an index line links. Each entry is looked for by its
// number (a search ranks at most server.SearchCandidates entries).
func BackfillFound(t *testing.T, s server.Store) {
	ctx := context.Background()
	found := 0
	for i := range backfillEntries {
		hits, err := s.Search(ctx, server.SearchRequest{Terms: parse(t, "backfilled "+strconv.Itoa(i)), AllRepos: true, Limit: 10})
		if err != nil {
			t.Fatalf("Search after backfill: %v", err)
		}
		found += len(hits)
	}
	if want := 2 * (backfillEntries - 1); found != want {
		t.Fatalf("Search after backfill: %d entries found, want %d", found, want)
	}
	hits, err := s.Search(ctx, server.SearchRequest{Terms: parse(t, "wombat"), Repos: []string{"acme/b"}, Limit: 10})
	if err != nil || len(hits) != 2 || hits[0].Key != "k0001.md" {
		t.Fatalf("Search of an index line after backfill: %+v, %v", hits, err)
	}
}
