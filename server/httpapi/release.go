package httpapi

import (
	"runtime/debug"
	"sync"
	"time"
)

// releaser gives the memory of large downloads back to the operating
// system once the last of them ends: a streamed body leaves its garbage on
// a heap the collector would otherwise keep at its high-water mark (the
// server runs with a high GOGC) until the next forced collection two
// minutes later. At most one release per releaseEvery. Safe for concurrent
// use.
type releaser struct {
	mu      sync.Mutex
	active  int
	pending bool
	free    func() // debug.FreeOSMemory; replaced in tests
	after   time.Duration
}

const releaseEvery = 5 * time.Second

func newReleaser() *releaser { return &releaser{free: debug.FreeOSMemory, after: releaseEvery} }

// start marks a large download begun; the returned function marks it done.
func (r *releaser) start() func() {
	r.mu.Lock()
	r.active++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.active--
		if r.active == 0 && !r.pending {
			r.pending = true
			time.AfterFunc(r.after, r.release)
		}
	}
}

// release frees memory unless another large download is running (its end
// schedules the next release).
func (r *releaser) release() {
	r.mu.Lock()
	r.pending = false
	idle := r.active == 0
	r.mu.Unlock()
	if idle {
		r.free()
	}
}
