package watch

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAggregatorDebounce(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	a := aggregator{debounce: 2 * time.Second, maxDelay: 10 * time.Second}
	if a.pending() || a.due(at(0)) {
		t.Fatal("empty aggregator pending")
	}
	a.add("b.md", at(0))
	a.add("a.md", at(500))
	a.add("b.md", at(1000))
	if got, want := a.deadline(), at(3000); !got.Equal(want) {
		t.Errorf("deadline = %v, want quiet time %v", got, want)
	}
	if a.due(at(2999)) || !a.due(at(3000)) {
		t.Errorf("due before or not at the deadline")
	}
	if diff := cmp.Diff(Batch{Paths: []string{"a.md", "b.md"}}, a.take()); diff != "" {
		t.Errorf("take (-want +got):\n%s", diff)
	}
	if a.pending() {
		t.Error("pending after take")
	}
}

func TestAggregatorMaxDelay(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := aggregator{debounce: 2 * time.Second, maxDelay: 10 * time.Second}
	// An event every second keeps the folder busy forever.
	for s := 0; s < 10; s++ {
		now := t0.Add(time.Duration(s) * time.Second)
		a.add("busy.md", now)
		if a.due(now) {
			t.Fatalf("due at %ds while events keep coming", s)
		}
	}
	if got, want := a.deadline(), t0.Add(10*time.Second); !got.Equal(want) {
		t.Errorf("deadline = %v, want first event + max delay %v", got, want)
	}
	if !a.due(t0.Add(10 * time.Second)) {
		t.Error("not due at the max delay")
	}
	a.take()
	// The next burst starts its own clock.
	a.add("x.md", t0.Add(11*time.Second))
	if got, want := a.deadline(), t0.Add(13*time.Second); !got.Equal(want) {
		t.Errorf("next burst deadline = %v, want %v", got, want)
	}
}

func TestAggregatorRescan(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := aggregator{debounce: time.Second, maxDelay: time.Minute}
	a.addRescan(t0)
	if !a.pending() || !a.due(t0.Add(time.Second)) {
		t.Fatal("rescan not pending or not due")
	}
	if diff := cmp.Diff(Batch{Rescan: true}, a.take()); diff != "" {
		t.Errorf("take (-want +got):\n%s", diff)
	}
}

func TestMergeBatch(t *testing.T) {
	b := Batch{Paths: []string{"b.md", "c.md"}}
	mergeBatch(&b, Batch{Paths: []string{"a.md", "c.md"}, Rescan: true})
	if diff := cmp.Diff(Batch{Paths: []string{"a.md", "b.md", "c.md"}, Rescan: true}, b); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
}

func TestIgnored(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"MEMORY.md", false},
		{"notes/db.md", false},
		{"notes/list.txt", false},
		{"x.md.swp", true},
		{".x.md.swp", true},
		{"x.md.swx", true},
		{"x.md~", true},
		{"notes/4913", true},
		{"49130", false},
		{".#x.md", true},
		{"x.tmp", true},
		{".hidden.md", true},
		{".git/config", true},
		{"notes/.obsidian/a.md", false},
		{".trash/old.md", false},
		{".Git/x.md", true},
		{".teammem-tmp-123", true},
		{"notes/.teammem-tmp-abc", true},
		{"a.conflict-20260101T000000Z-h.md", true},
	}
	for _, dir := range []string{".trash", "a/.b", "x.md~"} {
		if Ignored(dir, true) != (dir == "x.md~") {
			t.Errorf("Ignored(%q, folder) = %v", dir, !(dir == "x.md~"))
		}
	}
	for _, dir := range []string{".git", ".teammem", "a/.GIT", ".."} {
		if !Ignored(dir, true) {
			t.Errorf("Ignored(%q, folder) = false", dir)
		}
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := Ignored(tt.path, false); got != tt.want {
				t.Errorf("Ignored(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}
