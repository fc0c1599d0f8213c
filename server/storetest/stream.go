package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/server"
)

// collector is an EntryStream that keeps what it receives.
type collector struct {
	states  []server.RepoState
	entries []server.Entry
	failAt  int // > 0: Entry fails on this call
}

var errStop = errors.New("stop streaming")

func (c *collector) State(st server.RepoState) error { c.states = append(c.states, st); return nil }
func (c *collector) Entry(e server.Entry) error {
	c.entries = append(c.entries, e)
	if len(c.entries) == c.failAt {
		return errStop
	}
	return nil
}

// testStream: a streamed Snapshot gives the state once and then exactly the
// live entries Live would hold, in key order, keeps none of them in Live,
// still fills Deleted, and stops at the stream's error.
func testStream(t *testing.T, s server.Store) {
	repo := "acme/stream"
	apply(t, s, write(repo, at(0), contents{"b.md": "b", "a.md": "a", "c/d.md": "d", "gone.md": "x"}))
	apply(t, s, write(repo, at(1), nil, "gone.md"))
	want := snapshot(t, s, repo, server.ReadOptions{WithContent: true})

	c := &collector{}
	got, err := s.Snapshot(context.Background(), repo, server.ReadOptions{WithContent: true, Stream: c})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.states) != 1 || !cmp.Equal(c.states[0], want.RepoState) {
		t.Errorf("streamed states = %+v, want once %+v", c.states, want.RepoState)
	}
	if diff := cmp.Diff(want.Live, c.entries); diff != "" {
		t.Errorf("streamed entries differ from Live (-Live +streamed):\n%s", diff)
	}
	if len(got.Live) != 0 {
		t.Errorf("a streamed snapshot kept %d entries in Live", len(got.Live))
	}
	if diff := cmp.Diff(want.Deleted, got.Deleted); diff != "" {
		t.Errorf("Deleted of a streamed snapshot (-want +got):\n%s", diff)
	}

	c = &collector{failAt: 2}
	if _, err := s.Snapshot(context.Background(), repo, server.ReadOptions{WithContent: true, Stream: c}); !errors.Is(err, errStop) {
		t.Errorf("Snapshot with a failing stream = %v, want its error", err)
	}
	if len(c.entries) != 2 {
		t.Errorf("the stream got %d entries after failing on the 2nd", len(c.entries))
	}
}
