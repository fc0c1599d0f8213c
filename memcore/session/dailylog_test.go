package session

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/memcore"
)

func TestAppendDailyLog(t *testing.T) {
	dir := t.TempDir()
	// 23:30 local on the last day of March: the local date names the file.
	at := time.Date(2026, 3, 31, 23, 30, 0, 0, time.FixedZone("UTC+10", 10*3600))
	env := memcore.Env{Now: func() time.Time { return at }}
	path, err := AppendDailyLog(env, dir, "- first")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "logs", "2026", "03", "2026-03-31.md")
	if path != want {
		t.Fatalf("path = %q, want %q", path, want)
	}
	if _, err := AppendDailyLog(env, dir, "- second\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendDailyLog(env, dir, "  \n"); err == nil {
		t.Error("an empty entry was appended")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "- first\n- second\n" {
		t.Errorf("log = %q", data)
	}
}

func TestAppendDailyLogConcurrentEntriesStayWhole(t *testing.T) {
	dir := t.TempDir()
	at := time.Now()
	env := memcore.Env{Now: func() time.Time { return at }}
	entry := func(i int) string { return strings.Repeat(string(rune('a'+i%26)), 3000) }
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if _, err := AppendDailyLog(env, dir, entry(i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	data, err := os.ReadFile(DailyLogPath(env, dir))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 16 {
		t.Fatalf("%d lines, want 16", len(lines))
	}
	for _, l := range lines {
		if len(l) != 3000 || strings.Trim(l, l[:1]) != "" {
			t.Fatalf("an entry was interleaved: %q…", l[:40])
		}
	}
}
