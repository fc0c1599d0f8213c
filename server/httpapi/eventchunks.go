package httpapi

import (
	"runtime"
	"sync"
	"weak"

	"github.com/teammem/teammem/server"
)

// eventChunks holds each event's chunk (encodeEventChunk) while the event
// lives: the fan-out hands the same *server.Event to every stream of its
// repository, and the event is framed once for all of them. An entry goes
// when its event is collected. The zero value is ready to use; it is safe
// for concurrent use.
type eventChunks struct {
	mu sync.Mutex
	m  map[weak.Pointer[server.Event]]*eventChunk
}

type eventChunk struct {
	once sync.Once
	b    []byte
}

// of returns e's chunk, encoding it on the first call for e.
func (c *eventChunks) of(e *server.Event) []byte {
	k := weak.Make(e)
	c.mu.Lock()
	ch, ok := c.m[k]
	if !ok {
		if c.m == nil {
			c.m = map[weak.Pointer[server.Event]]*eventChunk{}
		}
		ch = &eventChunk{}
		c.m[k] = ch
		runtime.AddCleanup(e, c.forget, k)
	}
	c.mu.Unlock()
	ch.once.Do(func() { ch.b = encodeEventChunk(e) })
	return ch.b
}

// forget drops the chunk of a collected event.
func (c *eventChunks) forget(k weak.Pointer[server.Event]) {
	c.mu.Lock()
	delete(c.m, k)
	c.mu.Unlock()
}
