package agent

import (
	"testing"
	"time"

	"github.com/teammem/teammem/memcore"
)

func TestConflictName(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	tests := []struct{ name, key, host, want string }{
		{"top level", "MEMORY.md", "laptop", "MEMORY.conflict-20260102T020405Z-laptop.md"},
		{"nested", "notes/db.md", "build-01", "notes/db.conflict-20260102T020405Z-build-01.md"},
		{"txt keeps its extension", "a.txt", "h", "a.conflict-20260102T020405Z-h.txt"},
		{"hostile host", "a.md", "../x:y\x1b", "a.conflict-20260102T020405Z-x-y.md"},
		{"empty host", "a.md", "", "a.conflict-20260102T020405Z-unknown.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ConflictName(tt.key, at, tt.host)
			if got != tt.want {
				t.Errorf("ConflictName = %q, want %q", got, tt.want)
			}
			if err := memcore.ValidateKey(got); err != nil {
				t.Errorf("conflict name is not a valid key: %v", err)
			}
			if !IsConflictCopy(got) || IsConflictCopy(tt.key) {
				t.Errorf("IsConflictCopy wrong for %q or %q", got, tt.key)
			}
		})
	}
}
