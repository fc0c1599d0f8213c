package storetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/searchtext"
)

// IndexBatches reports a store's indexing batches so far: how many ran and
// the most content one of them read.
type IndexBatches func() (batches, largest int64)

// backlogEntries and backlogBytes make the backlog IndexedInBatches writes:
// 10 MB of content, more than two batches of searchtext.BatchBytes.
const backlogEntries, backlogBytes = 40, 250_000

// IndexedInBatches writes a backlog of large entries to one repository,
// none indexed yet (the writes mark them), and a delete among them; then
// a search of each entry's own word finds it, and the store indexed the
// backlog in several batches, none of which read more content than
// searchtext.BatchBytes. A store's test calls it on a fresh store whose
// background indexing waits longer than the test.
func IndexedInBatches(t *testing.T, s server.Store, stats IndexBatches) {
	const repo = "acme/backlog"
	filler := strings.Repeat("large notes fill the batch ", backlogBytes/27+1)
	for w := range 4 {
		c := contents{}
		for i := w * backlogEntries / 4; i < (w+1)*backlogEntries/4; i++ {
			head := fmt.Sprintf("# Backlog %d\n\nentry%02d\n", i, i)
			c[fmt.Sprintf("k%02d.md", i)] = head + filler[:backlogBytes-len(head)]
		}
		apply(t, s, write(repo, at(w), c))
	}
	apply(t, s, write(repo, at(4), nil, "k07.md"))
	before, _ := stats()
	for i := range backlogEntries {
		want := []string{fmt.Sprintf("k%02d.md", i)}
		if i == 7 {
			want = nil
		}
		if got := SearchKeys(t, s, repo, fmt.Sprintf("entry%02d", i)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("entry%02d: found %v, want %v", i, got, want)
		}
	}
	batches, largest := stats()
	if batches-before < 3 {
		t.Errorf("%d bytes of backlog indexed in %d batches, want 3 or more", (backlogEntries-1)*backlogBytes, batches-before)
	}
	if largest <= 0 || largest > searchtext.BatchBytes {
		t.Errorf("the largest batch read %d bytes of content, want some and at most %d", largest, searchtext.BatchBytes)
	}
}
