package liveset

import (
	"errors"
	"fmt"
	"github.com/teammem/teammem/server"
	"testing"

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
	_, err = s.plan(p.State(), server.Write{Repo: "x/y", Puts: []server.Put{{Key: "A.MD", Content: "3", Checksum: "sha256:3"}}})
	if !errors.Is(err, server.ErrKeyCollision) {
		t.Errorf("A.MD after the rename: %v; want a key collision", err)
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

func TestIfMatchList(t *testing.T) {
	cur := server.RepoState{Version: 3, Checksum: "sha256:cur"}
	for list, ok := range map[string]bool{"sha256:cur": true, "sha256:old,sha256:cur": true, "*": true, "sha256:old": false, "sha256:old,sha256:older": false} {
		if err := server.CheckIfMatch(cur, list); (err == nil) != ok {
			t.Errorf("If-Match %q: %v", list, err)
		}
	}
	if err := server.CheckIfMatch(server.RepoState{}, "*"); err == nil {
		t.Error("* matched a never-written repository")
	}
}
