package webui

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/server"
)

func TestLinkedKey(t *testing.T) {
	tests := []struct {
		from, dest string
		want       string
		ok         bool
	}{
		{"MEMORY.md", "topics/db.md", "topics/db.md", true},
		{"MEMORY.md", "./style.md#rules", "style.md", true},
		{"topics/db.md", "../MEMORY.md", "MEMORY.md", true},
		{"topics/db.md", "pg.md?x=1", "topics/pg.md", true},
		{"MEMORY.md", "my%20notes.md", "my notes.md", true},
		{"MEMORY.md", "../outside.md", "", false},
		{"MEMORY.md", "/etc/passwd", "", false},
		{"MEMORY.md", "https://example.com/a.md", "", false},
		{"MEMORY.md", "javascript:alert(1)", "", false},
		{"MEMORY.md", "//evil.example/x.md", "", false},
		{"MEMORY.md", "#section", "", false},
		{"MEMORY.md", "mailto:a@b.c", "", false},
	}
	for _, tt := range tests {
		got, ok := linkedKey(tt.from, tt.dest)
		if got != tt.want || ok != tt.ok {
			t.Errorf("linkedKey(%q, %q) = %q, %v; want %q, %v", tt.from, tt.dest, got, ok, tt.want, tt.ok)
		}
	}
}

func TestLineDiff(t *testing.T) {
	var a, b strings.Builder
	for i := 1; i <= 20; i++ {
		line := "line " + itoa(int64(i)) + "\n"
		a.WriteString(line)
		switch i {
		case 2:
			b.WriteString("changed 2\n")
		case 15:
		default:
			b.WriteString(line)
		}
	}
	b.WriteString("added\n")
	got := lineDiff(a.String(), b.String())
	type short struct {
		Op       string
		Old, New int
	}
	var ops [][]short
	for _, h := range got {
		var s []short
		for _, l := range h.Lines {
			s = append(s, short{l.Op, l.Old, l.New})
		}
		ops = append(ops, s)
	}
	want := [][]short{
		{{" ", 1, 1}, {"-", 2, 0}, {"+", 0, 2}, {" ", 3, 3}, {" ", 4, 4}, {" ", 5, 5}},
		{{" ", 12, 12}, {" ", 13, 13}, {" ", 14, 14}, {"-", 15, 0}, {" ", 16, 15}, {" ", 17, 16}, {" ", 18, 17}, {" ", 19, 18}, {" ", 20, 19}, {"+", 0, 20}},
	}
	if diff := cmp.Diff(want, ops); diff != "" {
		t.Errorf("lineDiff hunks (-want +got):\n%s", diff)
	}
	if h := lineDiff("same\n", "same\n"); len(h) != 0 {
		t.Errorf("identical texts give hunks %v", h)
	}
	if h := lineDiff("", "new\n"); len(h) != 1 || h[0].Lines[0].Op != "+" {
		t.Errorf("diff from empty = %v", h)
	}
}

func TestEntryTree(t *testing.T) {
	var live []server.Entry
	for _, k := range []string{"MEMORY.md", "a/b.md", "a/c/d.md", "a/e.md", "a0.md", "z/y/x.md"} {
		live = append(live, server.Entry{Key: k})
	}
	var got []string
	for _, r := range entryTree(live, map[string]string{"a/e.md": "ana"}) {
		got = append(got, strings.Repeat("  ", r.Depth)+r.Name+map[bool]string{true: "", false: " " + r.Author}[r.Folder])
	}
	want := []string{"MEMORY.md ", "a/", "  b.md ", "  c/", "    d.md ", "  e.md ana", "a0.md ", "z/", "  y/", "    x.md "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entryTree (-want +got):\n%s", diff)
	}
}

func TestFeedNamesAFewKeysPerVersion(t *testing.T) {
	var changed []string
	for i := range 20 {
		changed = append(changed, "k"+itoa(int64(i)))
	}
	f := newFeed("acme/api", server.ActivityPage{Next: 7, Items: []server.VersionActivity{
		{Version: 9, Changed: changed, Deleted: []string{"gone.md"}},
		{Version: 8, Changed: []string{"a.md"}, Deleted: []string{"b.md"}},
	}})
	if f.Next != 7 || len(f.Items) != 2 {
		t.Fatalf("feed = %+v", f)
	}
	if it := f.Items[0]; len(it.Changed) != feedKeys || len(it.Deleted) != 0 || it.More != 13 {
		t.Errorf("a 21-key version names %d+%d keys and %d more; want %d+0 and 13", len(it.Changed), len(it.Deleted), it.More, feedKeys)
	}
	if it := f.Items[1]; len(it.Changed) != 1 || len(it.Deleted) != 1 || it.More != 0 {
		t.Errorf("a 2-key version = %+v", it)
	}
}
