package watch

import (
	"context"
	"os"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Run delivers batches until ctx is done or Close is called, then closes
// the Batches channel and returns nil (cancellation is not an error). A
// batch that the receiver has not taken yet absorbs later bursts, so a slow
// receiver gets fewer, larger batches and nothing is lost.
func (w *Watcher) Run(ctx context.Context) error {
	defer close(w.out)
	defer w.Close()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var ready *Batch
	for {
		var out chan<- Batch
		var next Batch
		if ready != nil {
			out, next = w.out, *ready
		}
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return nil
			}
			w.handle(ev)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return nil
			}
			if !isClosed(err) {
				w.agg.addRescan(w.now()) // overflow or a watch error: events may be lost
			}
		case <-timer.C:
		case out <- next:
			ready = nil
			continue
		}
		ready = w.flush(ready)
		w.arm(timer)
	}
}

// flush moves a due burst into the ready batch.
func (w *Watcher) flush(ready *Batch) *Batch {
	if !w.agg.due(w.now()) {
		return ready
	}
	b := w.agg.take()
	if ready == nil {
		return &b
	}
	mergeBatch(ready, b)
	return ready
}

// arm sets the timer to the pending burst's deadline.
func (w *Watcher) arm(timer *time.Timer) {
	if !w.agg.pending() {
		timer.Stop()
		return
	}
	timer.Reset(max(w.agg.deadline().Sub(w.now()), 0))
}

// handle records one event.
func (w *Watcher) handle(ev fsnotify.Event) {
	rel, ok := w.rel(ev.Name)
	isDir := w.dirs[ev.Name]
	if ok && !isDir && ev.Has(fsnotify.Create) {
		fi, err := os.Lstat(ev.Name)
		isDir = err == nil && fi.IsDir()
	}
	if !ok || w.ignored(rel, isDir) {
		return
	}
	now := w.now()
	switch {
	case ev.Has(fsnotify.Create):
		w.agg.add(rel, now)
		if isDir {
			if err := w.addTree(ev.Name, func(r string) { w.agg.add(r, now) }); err != nil {
				w.agg.addRescan(now)
			}
		}
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		w.agg.add(rel, now)
		if w.dirs[ev.Name] {
			w.forgetDir(ev.Name)
			w.agg.addRescan(now)
		}
	case ev.Has(fsnotify.Write):
		w.agg.add(rel, now)
	}
}

// forgetDir drops the watches of a folder that went away and its subfolders.
func (w *Watcher) forgetDir(dir string) {
	for d := range w.dirs {
		if d == dir || len(d) > len(dir) && d[:len(dir)] == dir && os.IsPathSeparator(d[len(dir)]) {
			w.fsw.Remove(d) // the kernel may have dropped it already
			delete(w.dirs, d)
		}
	}
}
