package memcore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSetVerified(t *testing.T) {
	day := time.Date(2026, 12, 1, 15, 4, 5, 0, time.UTC)
	tests := []struct{ name, in, want string }{
		{"adds to a block", "---\nname: a\n---\nbody\n", "---\nname: a\nverified: 2026-12-01\n---\nbody\n"},
		{"replaces", "---\nverified: 2025-01-01\nname: a\n---\nbody\n", "---\nverified: 2026-12-01\nname: a\n---\nbody\n"},
		{"empty block", "---\n---\nbody", "---\nverified: 2026-12-01\n---\nbody"},
		{"no block", "body\n", "---\nverified: 2026-12-01\n---\nbody\n"},
		{"keeps the BOM", "\uFEFF---\nname: a\n---\n", "\uFEFF---\nname: a\nverified: 2026-12-01\n---\n"},
		{"a body line is not the key", "---\nname: a\n---\nverified: no\n", "---\nname: a\nverified: 2026-12-01\n---\nverified: no\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SetVerified(tt.in, day)
			if got != tt.want {
				t.Errorf("SetVerified(%q) = %q, want %q", tt.in, got, tt.want)
			}
			fm, _, err := ParseFrontmatter(strings.TrimPrefix(got, utf8BOM))
			if d, ok := TopicVerified(fm); err != nil || !ok || !d.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("read back %v %v %v", d, ok, err)
			}
		})
	}
}

func TestStaleTopicsAndConfirm(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	old := now.Add(-100 * 24 * time.Hour)
	for name, content := range map[string]string{
		"old.md":       "---\nname: old\n---\n",
		"confirmed.md": "---\nname: c\nverified: 2026-11-20\n---\n",
		"badday.md":    "---\nverified: yesterday\n---\n",
		"fresh.md":     "---\nname: f\n---\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if name != "fresh.md" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	stale := func() []string {
		t.Helper()
		ps, err := StaleTopics(dir, 30*24*time.Hour, now)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, p := range ps {
			keys = append(keys, p.Key)
		}
		return keys
	}
	if got := stale(); len(got) != 2 || got[0] != "badday.md" || got[1] != "old.md" {
		t.Fatalf("stale %v, want badday.md and old.md", got)
	}
	if ps, _ := StaleTopics(dir, 0, now); len(ps) != 0 {
		t.Errorf("off by default: %v", ps)
	}
	if err := ConfirmTopic(dir, "old.md", now); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(dir, "old.md"), old, old); err != nil {
		t.Fatal(err)
	}
	if got := stale(); len(got) != 1 || got[0] != "badday.md" {
		t.Errorf("after confirm: %v", got)
	}
	for _, key := range []string{"missing.md", "../x.md", "/etc/passwd"} {
		if err := ConfirmTopic(dir, key, now); err == nil {
			t.Errorf("ConfirmTopic(%q) succeeded", key)
		}
	}
}
