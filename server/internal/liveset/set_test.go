package liveset

import (
	"fmt"
	"testing"

	"github.com/teammem/teammem/memcore"
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
				sum := memcore.EntryChecksum(fmt.Appendf(nil, "%d", i))
				s.Put(k, Entry{Checksum: sum, Size: int64(i)})
				want[k] = sum
			}
			for _, k := range tt.deletes {
				s.Delete(k)
				delete(want, k)
			}
			if got := s.Checksum(); got != memcore.DatasetChecksum(want) {
				t.Errorf("Checksum = %s; want %s", got, memcore.DatasetChecksum(want))
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
	if other, ok := s.collision("memory.md"); !ok || other != "MEMORY.md" {
		t.Errorf("collision(memory.md) = %q, %v; want MEMORY.md", other, ok)
	}
	if _, ok := s.collision("MEMORY.md"); ok {
		t.Errorf("a key collides with itself")
	}
	s.Delete("MEMORY.md")
	if _, ok := s.collision("memory.md"); ok {
		t.Errorf("collision with a deleted key")
	}
}
