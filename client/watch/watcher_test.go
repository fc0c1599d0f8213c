package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// sentinel is written after each scenario: once it shows up in a batch,
// every earlier event has been delivered (inotify keeps order).
const sentinel = "zz-sentinel.md"

// start watches dir with short delays and returns the watcher.
func start(t *testing.T, dir string, opts Options) *Watcher {
	t.Helper()
	if opts.Debounce == 0 {
		opts.Debounce = 20 * time.Millisecond
		opts.MaxDelay = 200 * time.Millisecond
	}
	w, err := New(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return w
}

// collect writes the sentinel and gathers batches until it arrives; it
// returns the union of the paths seen (sentinel excluded), whether a rescan
// was asked for, and the number of batches.
func collect(t *testing.T, w *Watcher, dir string) (paths []string, rescan bool, batches int) {
	t.Helper()
	must(t, os.WriteFile(filepath.Join(dir, sentinel), []byte("s"), 0o644))
	timeout := time.After(10 * time.Second)
	seen := map[string]bool{}
	for {
		select {
		case b, ok := <-w.Batches():
			if !ok {
				t.Fatal("batches closed")
			}
			batches++
			rescan = rescan || b.Rescan
			for _, p := range b.Paths {
				seen[p] = true
			}
			if seen[sentinel] {
				delete(seen, sentinel)
				for p := range seen {
					paths = append(paths, p)
				}
				slices.Sort(paths)
				return paths, rescan, batches
			}
		case <-timeout:
			t.Fatalf("no sentinel; seen %v", seen)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	must(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(content), 0o644))
}

func TestWatcherScenarios(t *testing.T) {
	tests := []struct {
		name       string
		before     func(t *testing.T, dir string) // before watching
		act        func(t *testing.T, dir string)
		want       []string
		wantRescan bool
	}{
		{
			name: "create",
			act:  func(t *testing.T, dir string) { write(t, dir, "a.md", "a") },
			want: []string{"a.md"},
		},
		{
			name:   "modify",
			before: func(t *testing.T, dir string) { write(t, dir, "a.md", "a") },
			act: func(t *testing.T, dir string) {
				f, err := os.OpenFile(filepath.Join(dir, "a.md"), os.O_APPEND|os.O_WRONLY, 0)
				must(t, err)
				f.WriteString("more")
				must(t, f.Close())
			},
			want: []string{"a.md"},
		},
		{
			name:   "rename",
			before: func(t *testing.T, dir string) { write(t, dir, "a.md", "a") },
			act: func(t *testing.T, dir string) {
				must(t, os.Rename(filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md")))
			},
			want: []string{"a.md", "b.md"},
		},
		{
			name:   "delete",
			before: func(t *testing.T, dir string) { write(t, dir, "a.md", "a") },
			act:    func(t *testing.T, dir string) { must(t, os.Remove(filepath.Join(dir, "a.md"))) },
			want:   []string{"a.md"},
		},
		{
			name: "new subfolder then a file in it",
			act: func(t *testing.T, dir string) {
				must(t, os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755))
				write(t, dir, "sub/deep/c.md", "c")
			},
			want: []string{"sub", "sub/deep", "sub/deep/c.md"},
		},
		{
			name:   "file in a subfolder that existed before",
			before: func(t *testing.T, dir string) { must(t, os.MkdirAll(filepath.Join(dir, "notes"), 0o755)) },
			act:    func(t *testing.T, dir string) { write(t, dir, "notes/n.md", "n") },
			want:   []string{"notes/n.md"},
		},
		{
			name:   "vim-style save",
			before: func(t *testing.T, dir string) { write(t, dir, "x.md", "old") },
			act: func(t *testing.T, dir string) {
				write(t, dir, "4913", "")
				must(t, os.Remove(filepath.Join(dir, "4913")))
				write(t, dir, ".x.md.swp", "swap")
				must(t, os.Rename(filepath.Join(dir, "x.md"), filepath.Join(dir, "x.md~")))
				write(t, dir, "x.md", "new")
				must(t, os.Remove(filepath.Join(dir, "x.md~")))
				must(t, os.Remove(filepath.Join(dir, ".x.md.swp")))
			},
			want: []string{"x.md"},
		},
		{
			name: "temporary file renamed into place",
			act: func(t *testing.T, dir string) {
				write(t, dir, ".teammem-tmp-123", "new")
				must(t, os.Rename(filepath.Join(dir, ".teammem-tmp-123"), filepath.Join(dir, "x.md")))
				write(t, dir, "y.md.tmp", "new")
				must(t, os.Rename(filepath.Join(dir, "y.md.tmp"), filepath.Join(dir, "y.md")))
			},
			want: []string{"x.md", "y.md"},
		},
		{
			name:   ".git, dot-files, conflict copies and scratch are ignored",
			before: func(t *testing.T, dir string) { must(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755)) },
			act: func(t *testing.T, dir string) {
				write(t, dir, ".git/HEAD", "ref")
				must(t, os.MkdirAll(filepath.Join(dir, ".teammem"), 0o755))
				write(t, dir, ".teammem/a.md", "a")
				write(t, dir, "a.conflict-20260101T000000Z-h.md", "c")
				write(t, dir, ".#a.md", "lock")
				write(t, dir, "a.md.swx", "s")
			},
			want: nil,
		},
		{
			name: "a dot-folder a key may name is watched (.trash/old.md, as the stock client syncs)",
			act: func(t *testing.T, dir string) {
				must(t, os.MkdirAll(filepath.Join(dir, ".trash"), 0o755))
				write(t, dir, ".trash/old.md", "a")
			},
			want: []string{".trash", ".trash/old.md"},
		},
		{
			name: "a removed subfolder asks for a rescan",
			before: func(t *testing.T, dir string) {
				must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
				write(t, dir, "sub/a.md", "a")
			},
			act:        func(t *testing.T, dir string) { must(t, os.RemoveAll(filepath.Join(dir, "sub"))) },
			want:       []string{"sub", "sub/a.md"},
			wantRescan: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.before != nil {
				tt.before(t, dir)
			}
			w := start(t, dir, Options{})
			tt.act(t, dir)
			got, rescan, _ := collect(t, w, dir)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if rescan != tt.wantRescan {
				t.Errorf("rescan = %v, want %v", rescan, tt.wantRescan)
			}
		})
	}
}

// TestWatcherNewSubfolderIsWatched checks that a folder created while
// running gets a watch of its own: a later file in it is reported.
func TestWatcherNewSubfolderIsWatched(t *testing.T) {
	dir := t.TempDir()
	w := start(t, dir, Options{})
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	collect(t, w, dir)
	write(t, dir, "sub/later.md", "l")
	got, _, _ := collect(t, w, dir)
	if diff := cmp.Diff([]string{"sub/later.md"}, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

// TestWatcherBurstCoalesces writes many files in a burst with a long
// debounce: they arrive in one batch.
func TestWatcherBurstCoalesces(t *testing.T) {
	dir := t.TempDir()
	w := start(t, dir, Options{Debounce: 500 * time.Millisecond, MaxDelay: 5 * time.Second})
	var want []string
	for i := range 20 {
		name := string(rune('a'+i)) + ".md"
		write(t, dir, name, "x")
		want = append(want, name)
	}
	got, _, batches := collect(t, w, dir)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if batches != 1 {
		t.Errorf("%d batches, want 1", batches)
	}
}

func TestWatcherIgnoreOption(t *testing.T) {
	dir := t.TempDir()
	w := start(t, dir, Options{Debounce: 20 * time.Millisecond, MaxDelay: time.Second,
		Ignore: func(rel string) bool { return rel == "skip.md" }})
	write(t, dir, "skip.md", "x")
	write(t, dir, "keep.md", "x")
	got, _, _ := collect(t, w, dir)
	if diff := cmp.Diff([]string{"keep.md"}, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

func TestWatcherCloseEndsRun(t *testing.T) {
	w, err := New(t.TempDir(), Options{})
	must(t, err)
	done := make(chan error, 1)
	go func() { done <- w.Run(context.Background()) }()
	must(t, w.Close())
	if err := <-done; err != nil {
		t.Errorf("Run after Close = %v", err)
	}
	if _, ok := <-w.Batches(); ok {
		t.Error("batches not closed")
	}
	w.Close() // idempotent
}

func TestNewMissingFolder(t *testing.T) {
	if _, err := New(filepath.Join(t.TempDir(), "nope"), Options{}); err == nil {
		t.Error("New on a missing folder succeeded")
	}
}
