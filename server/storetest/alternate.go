package storetest

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/server"
)

// Alternate writes one repository through two stores sharing one database
// (two server replicas, or two processes on one SQLite file), alternating
// and sometimes writing twice in a row through the same store, and checks
// after every write that both report the state computed independently.
func Alternate(t *testing.T, a, b server.Store) {
	want := contents{}
	stores := []server.Store{a, b, b, a, a, b, a, b}
	for i, s := range stores {
		c := contents{fmt.Sprintf("k%d.md", i): fmt.Sprint(i)}
		var deletes []string
		if i > 0 && i%3 == 0 {
			deletes = []string{fmt.Sprintf("k%d.md", i-1)}
			delete(want, deletes[0])
		}
		want[fmt.Sprintf("k%d.md", i)] = fmt.Sprint(i)
		w := write(repo, at(i), c, deletes...)
		w.IfMatch = server.Tags{}
		res := apply(t, s, w)
		wantState(t, res.State, repo, int64(i+1), want, at(i))
		for j, other := range []server.Store{a, b} {
			if diff := cmp.Diff(want, liveContents(t, other, repo)); diff != "" {
				t.Fatalf("write %d, store %d: contents (-want +got):\n%s", i, j, diff)
			}
		}
	}
}
