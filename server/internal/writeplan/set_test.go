package writeplan

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/teammem/teammem/server"

	"github.com/teammem/teammem/memcore/protocol"
)

// TestSetChecksum checks that a Set built in any order and changed
// incrementally gives the checksum memcore computes from scratch.
func TestSetChecksum(t *testing.T) {
	tests := []struct {
		name    string
		puts    []string
		deletes []string
	}{
		{"empty", nil, nil},
		{"in order", []string{"a", "b", "c"}, nil},
		{"reverse order", []string{"c", "b", "a"}, nil},
		{"unicode", []string{"é", "Z", "a", "日本", "z"}, nil},
		{"deletes", []string{"a", "b", "c", "d"}, []string{"b", "d", "absent"}},
		{"delete all", []string{"x", "y"}, []string{"y", "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(1)
			want := map[string]string{}
			for i, k := range tt.puts {
				sum := protocol.EntryChecksum(fmt.Appendf(nil, "%d", i))
				s.Put(k, Entry{Checksum: sum, Size: int64(i)})
				want[k] = sum
			}
			for _, k := range tt.deletes {
				s.Delete(k)
				delete(want, k)
			}
			if got := s.Checksum(); got != protocol.DatasetChecksum(want) {
				t.Errorf("Checksum = %s; want %s", got, protocol.DatasetChecksum(want))
			}
			if s.Len() != len(want) {
				t.Errorf("Len = %d; want %d", s.Len(), len(want))
			}
		})
	}
}

// TestSetChecksumAfterRandomChanges changes a Set of several strides of
// keys at random places (new keys, changed and unchanged checksums,
// deletes, sometimes several changes between two checksums) and compares
// its checksum, which reuses hasher states, with memcore's from scratch.
func TestSetChecksumAfterRandomChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := New(1)
	want := map[string]string{}
	for step := range 2000 {
		for range 1 + rng.IntN(3) {
			key := fmt.Sprintf("k/%04d.md", rng.IntN(5*stride))
			switch rng.IntN(4) {
			case 0:
				s.Delete(key)
				delete(want, key)
			case 1: // the same checksum again
				if sum, ok := want[key]; ok {
					s.Put(key, Entry{Checksum: sum})
				}
			default:
				sum := protocol.EntryChecksum(fmt.Appendf(nil, "%d", step))
				s.Put(key, Entry{Checksum: sum})
				want[key] = sum
			}
		}
		if got := s.Checksum(); got != protocol.DatasetChecksum(want) {
			t.Fatalf("step %d (%d keys): Checksum = %s; want %s", step, len(want), got, protocol.DatasetChecksum(want))
		}
	}
	if len(s.prefixes) < 2 {
		t.Errorf("%d hasher states kept for %d keys; the test did not exercise them", len(s.prefixes), s.Len())
	}
}

func TestSetCollision(t *testing.T) {
	s := New(1)
	s.Put("MEMORY.md", Entry{})
	if got := s.collisions("memory.md"); len(got) != 1 || got[0] != "MEMORY.md" {
		t.Errorf("collisions(memory.md) = %q; want [MEMORY.md]", got)
	}
	if got := s.collisions("MEMORY.md"); len(got) != 0 {
		t.Errorf("a key collides with itself: %q", got)
	}
	s.Delete("MEMORY.md")
	if got := s.collisions("memory.md"); len(got) != 0 {
		t.Errorf("collision with a deleted key: %q", got)
	}
}

// TestCaseOnlyRenameKeepsFolding renames A.md to a.md in one write (put
// first, then delete, as apply does) and checks that a.md still guards its
// folded name, so a later A.MD collides.
func TestCaseOnlyRenameKeepsFolding(t *testing.T) {
	s := New(1)
	s.Put("A.md", Entry{Checksum: "sha256:1"})
	p, err := s.plan(server.RepoState{Repo: "x/y", Version: 1, Entries: 1},
		server.Write{Repo: "x/y", Puts: []server.Put{{Key: "a.md", Content: "2", Checksum: "sha256:2"}}, Deletes: []string{"A.md"}})
	if err != nil {
		t.Fatal(err)
	}
	s.apply(p)
	if got := s.collisions("A.MD"); len(got) != 1 || got[0] != "a.md" {
		t.Fatalf("after the rename, collisions(A.MD) = %q; want [a.md]", got)
	}
	p2, err := s.plan(p.State(), server.Write{Repo: "x/y", Puts: []server.Put{{Key: "A.MD", Content: "3", Checksum: "sha256:3"}}})
	if err != nil || len(p2.Skipped) != 1 || p2.Skipped[0].Existing != "a.md" || len(p2.Changes) != 0 {
		t.Errorf("A.MD after the rename: %+v, %v; want it skipped as a key collision with a.md", p2, err)
	}
}

func TestLimitsAllowShrinking(t *testing.T) {
	s := New(1)
	for _, k := range []string{"a.md", "b.md", "c.md", "d.md"} {
		s.Put(k, Entry{Checksum: "sha256:" + k, Size: 10})
	}
	cur := server.RepoState{Repo: "x/y", Version: 1, Entries: 4, Bytes: 40}
	if _, err := s.plan(cur, server.Write{Repo: "x/y", Deletes: []string{"a.md"}, MaxEntries: 2, MaxRepoBytes: 20}); err != nil {
		t.Errorf("a delete from an over-limit repo was refused: %v", err)
	}
	if _, err := s.plan(cur, server.Write{Repo: "x/y", Puts: []server.Put{{Key: "b.md", Content: "x", Checksum: "sha256:x"}}, MaxEntries: 2, MaxRepoBytes: 20}); err != nil {
		t.Errorf("a shrinking edit of an over-limit repo was refused: %v", err)
	}
	if _, err := s.plan(cur, server.Write{Repo: "x/y", Puts: []server.Put{{Key: "e.md", Content: "x", Checksum: "sha256:x"}}, MaxEntries: 2}); !errors.Is(err, server.ErrTooManyEntries) {
		t.Errorf("growing an over-limit repo: %v; want too many entries", err)
	}
}

// BenchmarkChecksumAfterPut changes one key of 1,000, a different one each
// time, and takes the dataset checksum, as every write does.
func BenchmarkChecksumAfterPut(b *testing.B) {
	s := New(1)
	for i := range 1000 {
		s.Put(fmt.Sprintf("notes/topic-%04d.md", i), Entry{Checksum: protocol.EntryChecksum(fmt.Appendf(nil, "%d", i))})
	}
	i := 0
	for b.Loop() {
		i++
		s.Put(fmt.Sprintf("notes/topic-%04d.md", i*7919%1000), Entry{Checksum: protocol.EntryChecksum(fmt.Appendf(nil, "%d", -i))})
		_ = s.Checksum()
	}
}
