package postgres

import (
	"strings"
	"testing"

	"github.com/teammem/teammem/server"
)

// TestNextGroupBounds: a group takes at most maxGroup writes and, beyond
// its first write, at most maxGroupBytes of content; a write larger than
// the bound still goes, alone.
func TestNextGroupBounds(t *testing.T) {
	write := func(bytes int) *job {
		return &job{w: server.Write{Repo: "r", Puts: []server.Put{{Key: "a.md", Content: strings.Repeat("x", bytes)}}}}
	}
	var q writeQueues
	r := &run{progress: make(chan struct{})}
	q.runs = map[string]*run{"r": r}
	for range maxGroup + 3 {
		r.queued = append(r.queued, write(1))
	}
	huge := write(maxGroupBytes + 1)
	r.queued = append(r.queued, write(maxGroupBytes/2), write(maxGroupBytes/2), write(1), huge, write(1))
	var sizes []int
	for {
		jobs, _ := q.next("r")
		if len(jobs) == 0 {
			break
		}
		sizes = append(sizes, len(jobs))
	}
	// 64 small; 3 small + a half (the other half would go over the
	// bound); the other half + 1 small; the huge one alone; the last.
	want := []int{maxGroup, 4, 2, 1, 1}
	if len(sizes) != len(want) {
		t.Fatalf("groups %v, want %v", sizes, want)
	}
	for i := range want {
		if sizes[i] != want[i] {
			t.Fatalf("groups %v, want %v", sizes, want)
		}
	}
	if _, running := q.runs["r"]; running {
		t.Error("the queue outlived its last group")
	}
}
