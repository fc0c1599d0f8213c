package agent

import (
	"os"
	"sync"
	"time"

	"github.com/teammem/teammem/internal/linediff"
)

// localWriters is how many files a pull writes at once. Each write is
// atomic on its own (memcore.SafeWrite: temporary file, fsync, rename,
// folder fsync), so writing several at a time only overlaps their fsyncs.
const localWriters = 8

// writeLocalAll writes the server's content of the steps' keys (in key
// order) with localWriters at a time, each only if the file still holds
// what the step was planned from, then records each written key as agreed
// and reports it pulled, in key order. A key that was not written is
// neither recorded nor reported; its error is returned, one per key.
func (e *Engine) writeLocalAll(steps []Step, r *Report) []error {
	if len(steps) == 0 {
		return nil
	}
	writes := make(map[string]string, len(steps))
	for _, st := range steps {
		writes[st.Key] = e.view.content[st.Key]
	}
	if err := e.markWriting(writes); err != nil {
		return []error{err}
	}
	defer e.cfg.Journal.doneWriting()
	errs := make([]error, len(steps))
	forEach(len(steps), localWriters, func(i int) {
		errs[i] = e.writeIfUnchanged(steps[i].Key, steps[i].Local, e.view.content[steps[i].Key])
	})
	var failed []error
	for i, st := range steps {
		key := st.Key
		e.local.changed(key)
		if errs[i] != nil {
			failed = append(failed, errs[i])
			continue
		}
		e.cfg.Journal.Record(key, e.view.content[key])
		r.Pulled = append(r.Pulled, key)
	}
	return failed
}

// writeIfUnchanged writes content to key unless the file no longer
// holds scanned (see unchanged). It may run on several goroutines at once:
// it touches no engine state but the folder.
func (e *Engine) writeIfUnchanged(key, scanned, content string) error {
	rewritten := func(old, late string) error { return e.keepLate(key, content, old, late) }
	keep := func(f *os.File, seen string) { e.replaced.add(key, f, seen, content, time.Now()) }
	if err := writeChecked(e.cfg.Dir, key, scanned, content, rewritten, keep); err != nil {
		return err
	}
	if e.onLocalChange != nil {
		e.onLocalChange(key)
	}
	return nil
}

// markWriting records in the journal, saved before any file is written,
// what the agent is about to write (key → the server's content), so that a
// crash in the middle leaves no file looking like a local edit.
func (e *Engine) markWriting(writes map[string]string) error {
	e.cfg.Journal.markWriting(writes)
	if err := e.cfg.Journal.Save(); err != nil {
		return err
	}
	e.saved = true
	return nil
}

// forEach calls f(0), …, f(n-1) on up to workers goroutines and returns
// when all calls have.
func forEach(n, workers int, f func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(n, workers) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// keepLate keeps what another program wrote to key's old file (read as
// old) while the agent replaced it with content, the old file now holding
// late: the lines of an index that late adds to old and content lacks are
// appended to it (a line content dropped on purpose stays dropped); any
// other file's late version becomes a conflict copy (status lists it),
// never lost.
func (e *Engine) keepLate(key, content, old, late string) error {
	if isIndex(key) {
		have := map[string]bool{}
		for _, l := range linediff.Split(content) {
			have[linediff.NormalLine(l)] = true
		}
		var missing []string
		for _, h := range linediff.Hunks(linediff.Split(old), linediff.Split(late)) {
			for _, l := range h.Lines {
				if !have[linediff.NormalLine(l)] {
					missing, have[linediff.NormalLine(l)] = append(missing, l), true
				}
			}
		}
		if len(missing) == 0 {
			return nil
		}
		return appendTo(e.cfg.Dir, key, afterLastLine(content, linediff.JoinLines(missing)))
	}
	_, err := writeConflictCopy(e.cfg.Dir, key, e.cfg.Now(), e.cfg.Host, []byte(late))
	return err
}
