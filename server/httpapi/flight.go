package httpapi

import "sync"

// flights makes concurrent cache misses for the same body share one
// computation: after a write, every client polling the repository misses
// the body cache at once, and only one of them needs to read and encode
// the snapshot. Safe for concurrent use.
type flights struct {
	mu    sync.Mutex
	calls map[flightKey]*flight
}

type flightKey struct {
	cacheKey
	version int64
}

type flight struct {
	done     chan struct{}
	body     []byte
	checksum string
	err      error
}

// do runs fn once for all callers that ask for key while it runs, and
// returns its results to each of them.
func (f *flights) do(key flightKey, fn func() ([]byte, string, error)) ([]byte, string, error) {
	f.mu.Lock()
	if c, ok := f.calls[key]; ok {
		f.mu.Unlock()
		<-c.done
		return c.body, c.checksum, c.err
	}
	if f.calls == nil {
		f.calls = map[flightKey]*flight{}
	}
	c := &flight{done: make(chan struct{})}
	f.calls[key] = c
	f.mu.Unlock()

	defer func() {
		f.mu.Lock()
		delete(f.calls, key)
		f.mu.Unlock()
		close(c.done)
	}()
	c.body, c.checksum, c.err = fn()
	return c.body, c.checksum, c.err
}
