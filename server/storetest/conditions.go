package storetest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/server"
)

func testIfMatch(t *testing.T, s server.Store) {
	ctx := context.Background()
	seeded := contents{"a.md": "one"}
	tests := []struct {
		name    string
		seed    bool
		ifMatch string
		wantOK  bool
		wantSum string // the checksum a PreconditionError carries
	}{
		{"match", true, seeded.checksum(), true, ""},
		{"mismatch", true, contents{"x": "y"}.checksum(), false, seeded.checksum()},
		{"star on existing", true, "*", true, ""},
		{"checksum on never written", false, seeded.checksum(), false, ""},
		{"empty checksum on never written", false, contents{}.checksum(), false, ""},
		{"star on never written", false, "*", false, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := repo + string(rune('a'+i))
			if tt.seed {
				apply(t, s, write(r, at(0), seeded))
			}
			w := write(r, at(1), contents{"b.md": "two"})
			w.IfMatch = tags(tt.ifMatch)
			res, err := s.Apply(ctx, w)
			if tt.wantOK {
				if err != nil || res.State.Version != 2 {
					t.Fatalf("Apply = version %d, %v; want version 2", res.State.Version, err)
				}
				return
			}
			var pe *server.PreconditionError
			if !errors.As(err, &pe) || !errors.Is(err, server.ErrPreconditionFailed) {
				t.Fatalf("Apply error = %v; want a *PreconditionError", err)
			}
			if pe.Checksum != tt.wantSum {
				t.Errorf("PreconditionError.Checksum = %q; want %q", pe.Checksum, tt.wantSum)
			}
			wantUnchanged(t, s, r, tt.seed, seeded)
		})
	}
}

// testIfNoneMatch: "*" applies only while the repository has never held
// data, also once everything in it was deleted; a listed checksum refuses
// only when it is the current one. A refused write changes nothing and
// carries the current checksum.
func testIfNoneMatch(t *testing.T, s server.Store) {
	ctx := context.Background()
	seeded := contents{"a.md": "one"}
	tests := []struct {
		name        string
		seed        bool
		emptied     bool // every seeded key deleted again before the write
		ifNoneMatch string
		wantOK      bool
	}{
		{"star on never written", false, false, "*", true},
		{"star on existing", true, false, "*", false},
		{"star after everything was deleted", true, true, "*", false},
		{"current checksum", true, false, seeded.checksum(), false},
		{"other checksum", true, false, contents{"x": "y"}.checksum(), true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := "acme/inm" + string(rune('a'+i))
			version := int64(0)
			if tt.seed {
				version = apply(t, s, write(r, at(0), seeded)).State.Version
			}
			if tt.emptied {
				version = apply(t, s, write(r, at(1), nil, "a.md")).State.Version
			}
			before, _ := s.RepoState(ctx, r)
			w := write(r, at(2), contents{"b.md": "two"})
			w.IfNoneMatch = tags(tt.ifNoneMatch)
			res, err := s.Apply(ctx, w)
			if tt.wantOK {
				if err != nil || res.State.Version != version+1 {
					t.Fatalf("Apply = version %d, %v; want version %d", res.State.Version, err, version+1)
				}
				return
			}
			var pe *server.PreconditionError
			if !errors.As(err, &pe) || !errors.Is(err, server.ErrPreconditionFailed) {
				t.Fatalf("Apply error = %v; want a *PreconditionError", err)
			}
			if pe.Checksum != before.Checksum || pe.Checksum == "" {
				t.Errorf("PreconditionError.Checksum = %q; want the current %q", pe.Checksum, before.Checksum)
			}
			if after, _ := s.RepoState(ctx, r); after.Version != version || after.Checksum != before.Checksum {
				t.Errorf("refused write moved the repo from version %d to %d", version, after.Version)
			}
		})
	}
}

// wantUnchanged checks that repo still holds exactly c at version 1 (or was
// never written when !seeded).
func wantUnchanged(t *testing.T, s server.Store, r string, seeded bool, c contents) {
	t.Helper()
	st, err := s.RepoState(context.Background(), r)
	if !seeded {
		wantErr(t, err, server.ErrNotFound)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	wantState(t, st, r, 1, c, at(0))
	if diff := cmp.Diff(c, liveContents(t, s, r)); diff != "" {
		t.Errorf("contents after a refused write (-want +got):\n%s", diff)
	}
	snap := snapshot(t, s, r, server.ReadOptions{})
	if len(snap.Deleted) != 0 {
		t.Errorf("a refused write left tombstones %v", tombKeys(snap.Deleted))
	}
	for _, key := range []string{"new1.md", "new2.md", "b.md", "memory.md"} {
		revs, err := s.History(context.Background(), r, key, 0, 0)
		if _, seededKey := c[key]; seededKey {
			if len(revs) != 1 {
				t.Errorf("a refused write left history for %s: %d revisions, %v; want the seeded one", key, len(revs), err)
			}
		} else if !errors.Is(err, server.ErrNotFound) {
			t.Errorf("a refused write left history for %s: %v", key, err)
		}
	}
}

func testMaxEntries(t *testing.T, s server.Store) {
	seeded := contents{"a.md": "1", "b.md": "2", "c.md": "3"}
	tests := []struct {
		name     string
		max      int
		wantOK   bool
		received int
	}{
		{"room", 5, true, 0},
		{"exact", 4, true, 0},
		{"over", 3, false, 4},
		{"far over", 1, false, 4},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := repo + string(rune('a'+i))
			apply(t, s, write(r, at(0), seeded))
			// Two new keys, one modified, one deleted: 3 + 2 - 1 = 4 live.
			w := write(r, at(1), contents{"new1.md": "x", "new2.md": "y", "b.md": "changed"}, "c.md")
			w.MaxEntries = tt.max
			res, err := s.Apply(context.Background(), w)
			if tt.wantOK {
				if err != nil || res.State.Entries != 4 {
					t.Fatalf("Apply = %d entries, %v; want 4", res.State.Entries, err)
				}
				return
			}
			var te *server.TooManyEntriesError
			if !errors.As(err, &te) || !errors.Is(err, server.ErrTooManyEntries) {
				t.Fatalf("Apply error = %v; want a *TooManyEntriesError", err)
			}
			if te.Max != tt.max || te.Received != tt.received {
				t.Errorf("TooManyEntriesError = %+v; want Max %d Received %d", te, tt.max, tt.received)
			}
			wantUnchanged(t, s, r, true, seeded)
		})
	}
}

func testMaxRepoBytes(t *testing.T, s server.Store) {
	seeded := contents{"a.md": "12345", "b.md": "12345"} // 10 bytes
	tests := []struct {
		name   string
		max    int64
		wantOK bool
	}{
		{"room", 100, true},
		{"exact", 12, true}, // 10 - 5 (b.md deleted) + 7 (new1.md)
		{"over", 11, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := repo + string(rune('a'+i))
			apply(t, s, write(r, at(0), seeded))
			w := write(r, at(1), contents{"new1.md": "1234567"}, "b.md")
			w.MaxRepoBytes = tt.max
			res, err := s.Apply(context.Background(), w)
			if tt.wantOK {
				if err != nil || res.State.Bytes != 12 {
					t.Fatalf("Apply = %d bytes, %v; want 12", res.State.Bytes, err)
				}
				return
			}
			wantErr(t, err, server.ErrRepoTooLarge)
			var big *server.RepoTooLargeError
			if !errors.As(err, &big) || big.Max != tt.max || big.Bytes <= big.Max {
				t.Errorf("Apply error = %#v; want a *RepoTooLargeError with the limit and the bytes", err)
			}
			wantUnchanged(t, s, r, true, seeded)
		})
	}
}

func testKeyCollision(t *testing.T, s server.Store) {
	seeded := contents{"MEMORY.md": "hello", "Straße.md": "x"}
	tests := []struct {
		name     string
		puts     contents
		deletes  []string
		existing string // "" when the write succeeds
	}{
		{"lower case of a live key", contents{"memory.md": "hi"}, nil, "MEMORY.md"},
		{"full case folding", contents{"STRASSE.md": "y"}, nil, "Straße.md"},
		{"two new keys folding alike", contents{"n.md": "1", "N.md": "2"}, nil, "N.md"},
		{"collision despite an unrelated delete", contents{"memory.md": "hi"}, []string{"Straße.md"}, "MEMORY.md"},
		{"re-put of the same key", contents{"MEMORY.md": "changed"}, nil, ""},
		{"rename by case in one write", contents{"memory.md": "hi"}, []string{"MEMORY.md"}, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := repo + string(rune('a'+i))
			base := apply(t, s, write(r, at(0), seeded))
			puts := maps.Clone(tt.puts)
			puts["other.md"] = "applied beside the skipped key"
			res, err := s.Apply(context.Background(), write(r, at(1), puts, tt.deletes...))
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if !slices.Contains(res.Changed, "other.md") || res.State.Version != base.State.Version+1 {
				t.Errorf("Apply = %+v; want other.md applied in one new version", res)
			}
			if tt.existing == "" {
				if len(res.Skipped) != 0 {
					t.Errorf("Skipped = %+v, want none", res.Skipped)
				}
				return
			}
			if len(res.Skipped) != 1 || res.Skipped[0].Reason != server.ReasonKeyCollision || res.Skipped[0].Existing != tt.existing {
				t.Fatalf("Skipped = %+v; want one key_collision with %q", res.Skipped, tt.existing)
			}
			skippedKey := res.Skipped[0].Key
			if slices.Contains(res.Changed, skippedKey) {
				t.Errorf("skipped key %q is also in Changed", skippedKey)
			}
			snap, err := s.Snapshot(context.Background(), r, server.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range snap.Live {
				if e.Key == skippedKey {
					t.Errorf("skipped key %q was stored", skippedKey)
				}
			}
		})
	}
	t.Run("collides only with a tombstone", func(t *testing.T) {
		r := repo + "/tomb"
		apply(t, s, write(r, at(0), contents{"MEMORY.md": "hello"}))
		apply(t, s, write(r, at(1), nil, "MEMORY.md"))
		res := apply(t, s, write(r, at(2), contents{"memory.md": "hi"}))
		if diff := cmp.Diff([]string{"memory.md"}, res.Changed); diff != "" {
			t.Errorf("Changed (-want +got):\n%s", diff)
		}
	})
	t.Run("all or nothing", func(t *testing.T) {
		r := repo + "/all"
		base := apply(t, s, write(r, at(0), seeded))
		w := write(r, at(1), contents{"memory.md": "hi", "other.md": "left out with it"}, "Straße.md")
		w.AllOrNothing = true
		res := apply(t, s, w)
		if len(res.Skipped) != 1 || res.Skipped[0].Key != "memory.md" || len(res.Changed)+len(res.Deleted) != 0 || res.State != base.State {
			t.Errorf("Apply = %+v; want memory.md skipped and nothing changed at %+v", res, base.State)
		}
		if diff := cmp.Diff(seeded, liveContents(t, s, r)); diff != "" {
			t.Errorf("contents after an all-or-nothing write with a collision (-want +got):\n%s", diff)
		}
	})
}

// tags is the condition a header's comma-separated form names: "" none,
// "*" any, else the listed checksums.
func tags(s string) server.Tags {
	switch s {
	case "":
		return server.Tags{}
	case "*":
		return server.AnyTag()
	}
	return server.TagList(strings.Split(s, ",")...)
}
