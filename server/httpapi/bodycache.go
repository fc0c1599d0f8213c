package httpapi

import (
	"container/list"
	"sync"
)

// bodyCache keeps encoded GET bodies per (repo, view), each tagged with the
// version and checksum it reflects. A version is never reused and the
// checksum names the content, so a cached body is served only when the
// repository's current summary row (read on every request) still carries
// the same pair: the cache is correct across server replicas sharing one
// database and needs no invalidation. Least recently used bodies are evicted
// beyond the byte budget. Safe for concurrent use.
type bodyCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // front = most recently used; values are *cachedBody
	items map[cacheKey]*list.Element
}

type cacheKey struct {
	repo string
	view string
}

type cachedBody struct {
	key      cacheKey
	version  int64
	checksum string
	body     []byte
	gz       []byte // body gzipped, once a client asked for it (set once, by gzOnce)
	gzOnce   sync.Once
}

func (b *cachedBody) size() int64 { return int64(len(b.body) + len(b.gz)) }

// newBodyCache returns a cache holding at most max bytes; max <= 0 disables it.
func newBodyCache(max int64) *bodyCache {
	if max <= 0 {
		return nil
	}
	return &bodyCache{max: max, order: list.New(), items: map[cacheKey]*list.Element{}}
}

// get returns the body cached for key at exactly this version and checksum.
func (c *bodyCache) get(key cacheKey, version int64, checksum string) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	b := el.Value.(*cachedBody)
	if b.version != version || b.checksum != checksum {
		return nil, false
	}
	c.order.MoveToFront(el)
	return b.body, true
}

// put stores a body unless it is larger than a quarter of the budget or
// older than what is cached.
func (c *bodyCache) put(key cacheKey, version int64, checksum string, body []byte) {
	if c == nil || int64(len(body)) > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		old := el.Value.(*cachedBody)
		if old.version > version {
			return
		}
		c.size -= old.size()
		c.order.Remove(el)
		delete(c.items, key)
	}
	c.items[key] = c.order.PushFront(&cachedBody{key: key, version: version, checksum: checksum, body: body})
	c.size += int64(len(body))
	c.evict()
}

// evict drops least recently used bodies until the cache fits its budget.
func (c *bodyCache) evict() {
	for c.size > c.max {
		last := c.order.Back()
		b := last.Value.(*cachedBody)
		c.order.Remove(last)
		delete(c.items, b.key)
		c.size -= b.size()
	}
}

// gzipped returns the gzipped body cached for key at exactly this version
// and checksum, compressing body on the first ask only: requests that ask
// meanwhile wait for that compression instead of repeating it. Without a
// matching entry it just compresses body.
func (c *bodyCache) gzipped(key cacheKey, version int64, checksum string, body []byte) []byte {
	if c == nil {
		return gzipBytes(body)
	}
	c.mu.Lock()
	el, ok := c.items[key]
	var b *cachedBody
	if ok {
		b = el.Value.(*cachedBody)
		ok = b.version == version && b.checksum == checksum
	}
	c.mu.Unlock()
	if !ok {
		return gzipBytes(body)
	}
	b.gzOnce.Do(func() {
		gz := gzipBytes(body)
		c.mu.Lock()
		defer c.mu.Unlock()
		b.gz = gz
		if el, ok := c.items[key]; ok && el.Value.(*cachedBody) == b { // still cached: count it
			c.size += int64(len(gz))
			c.evict()
		}
	})
	return b.gz
}

// maxBody is the largest body put keeps (0 when the cache is off).
func (c *bodyCache) maxBody() int64 {
	if c == nil {
		return 0
	}
	return c.max / 4
}
