package agent

import (
	"errors"
	"fmt"
	"sync"

	"github.com/teammem/teammem/memcore"
)

// localWriters is how many files a pull writes at once. Each write is
// atomic on its own (memcore.SafeWrite: temporary file, fsync, rename,
// folder fsync), so writing several at a time only overlaps their fsyncs.
const localWriters = 8

// writeLocalAll writes the server's content of keys (in key order) with
// localWriters at a time, then records each written key as agreed and
// reports it pulled, in key order. A key that could not be written is
// neither recorded nor reported; the errors are joined.
func (e *Engine) writeLocalAll(keys []string, r *Report) error {
	errs := make([]error, len(keys))
	forEach(len(keys), localWriters, func(i int) {
		errs[i] = memcore.SafeWrite(e.cfg.Dir, keys[i], []byte(e.view.content[keys[i]]))
	})
	for i, key := range keys {
		e.local.changed(key)
		if errs[i] != nil {
			errs[i] = fmt.Errorf("write %q: %w", key, errs[i])
			continue
		}
		e.cfg.Journal.Record(key, e.view.content[key])
		r.Pulled = append(r.Pulled, key)
	}
	return errors.Join(errs...)
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
