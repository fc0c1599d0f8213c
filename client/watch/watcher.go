// Package watch turns file system events under a folder into debounced
// batches of changed paths (spec/agent.md §3.4–5). It watches folders, not
// files, adds watches for new subfolders as they appear, drops editor
// scratch files, dot-files and the agent's own temporary files, and asks
// for a full rescan when events may have been lost. fsnotify lives here and
// nowhere else.
package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Defaults of Options (spec/agent.md §3.5).
const (
	DefaultDebounce = 2 * time.Second
	DefaultMaxDelay = 10 * time.Second
)

// Options tunes a Watcher.
type Options struct {
	// Debounce is how long the folder must stay quiet before a batch is
	// emitted; 0 means DefaultDebounce.
	Debounce time.Duration
	// MaxDelay bounds how long after the first event of a burst its batch is
	// emitted, however busy the folder stays; 0 means DefaultMaxDelay.
	MaxDelay time.Duration
	// Ignore, when set, drops further relative slash paths on top of
	// Ignored. A folder it ignores is not watched.
	Ignore func(rel string) bool
}

// Batch is one debounced burst of changes.
type Batch struct {
	// Paths are the changed paths, relative to the folder, slash-separated,
	// sorted and unique. A path may name a file that no longer exists (it
	// was deleted or renamed away) or a new folder.
	Paths []string
	// Rescan says events may have been lost (queue overflow, watch error,
	// a watched folder removed or moved): the receiver must rescan the whole
	// folder.
	Rescan bool
}

// Watcher watches a folder recursively. Run must be called once; Batches
// is read by one goroutine; Close may be called from any goroutine, any
// number of times.
type Watcher struct {
	root  string
	opts  Options
	fsw   *fsnotify.Watcher
	out   chan Batch
	dirs  map[string]bool // watched folders (absolute); owned by Run after New
	agg   aggregator
	now   func() time.Time
	close sync.Once
}

// New starts watching dir and every subfolder that is not ignored. Events
// that happen after New returns are reported by Run.
func New(dir string, opts Options) (*Watcher, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = DefaultMaxDelay
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	w := &Watcher{root: root, opts: opts, fsw: fsw, out: make(chan Batch, 1), dirs: map[string]bool{},
		agg: aggregator{debounce: opts.Debounce, maxDelay: opts.MaxDelay}, now: time.Now}
	if err := w.addTree(root, nil); err != nil {
		fsw.Close()
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	return w, nil
}

// Batches returns the channel of batches. It is closed when Run returns.
func (w *Watcher) Batches() <-chan Batch { return w.out }

// Close stops watching; Run then returns nil.
func (w *Watcher) Close() error {
	var err error
	w.close.Do(func() { err = w.fsw.Close() })
	return err
}

// ignored applies Ignored and Options.Ignore to a relative slash path, a
// folder's when isDir.
func (w *Watcher) ignored(rel string, isDir bool) bool {
	return Ignored(rel, isDir) || (w.opts.Ignore != nil && w.opts.Ignore(rel))
}

// rel returns the relative slash path of an absolute path under root.
func (w *Watcher) rel(p string) (string, bool) {
	r, err := filepath.Rel(w.root, p)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// addTree watches dir and its subfolders. Files found on the way are passed
// to found (nil during New), since they may have appeared before their
// folder's watch.
func (w *Watcher) addTree(dir string, found func(rel string)) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, ok := w.rel(p)
		if p != w.root && (!ok || w.ignored(rel, d.IsDir())) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			if found != nil {
				found(rel)
			}
			return nil
		}
		if err := w.fsw.Add(p); err != nil {
			return err
		}
		w.dirs[p] = true
		if found != nil && p != dir {
			found(rel)
		}
		return nil
	})
}

// isClosed reports fsnotify's closed-watcher error.
func isClosed(err error) bool {
	return errors.Is(err, fsnotify.ErrClosed) || errors.Is(err, os.ErrClosed)
}
