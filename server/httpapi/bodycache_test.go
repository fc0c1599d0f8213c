package httpapi

import (
	"strings"
	"sync"
	"testing"
)

func TestBodyCache(t *testing.T) {
	c := newBodyCache(100)
	a := cacheKey{"acme/a", ""}
	b := cacheKey{"acme/b", "hashes"}
	c.put(a, 1, "s1", []byte("aaaa"))
	if got, ok := c.get(a, 1, "s1"); !ok || string(got) != "aaaa" {
		t.Fatalf("get = %q %v", got, ok)
	}
	for _, miss := range []struct {
		v   int64
		sum string
	}{{2, "s1"}, {1, "s2"}} {
		if _, ok := c.get(a, miss.v, miss.sum); ok {
			t.Errorf("stale hit for version %d checksum %s", miss.v, miss.sum)
		}
	}
	c.put(a, 0, "s0", []byte("old")) // older than cached: ignored
	if _, ok := c.get(a, 1, "s1"); !ok {
		t.Error("an older body replaced a newer one")
	}
	c.put(b, 1, "t", []byte(strings.Repeat("b", 26))) // > max/4: not cached
	if _, ok := c.get(b, 1, "t"); ok {
		t.Error("an oversized body was cached")
	}
	for i := 0; i < 10; i++ { // 10 × 20 bytes > 100: the oldest are evicted
		c.put(cacheKey{string(rune('a' + i)), ""}, 1, "x", []byte(strings.Repeat("z", 20)))
	}
	if c.size > c.max {
		t.Errorf("size %d over budget %d", c.size, c.max)
	}
	if _, ok := c.get(a, 1, "s1"); ok {
		t.Error("least recently used body not evicted")
	}
	var nilCache *bodyCache
	nilCache.put(a, 1, "s", []byte("x"))
	if _, ok := nilCache.get(a, 1, "s"); ok {
		t.Error("disabled cache hit")
	}
}

// TestBodyCacheGzipsOnce: requests asking at once for the gzipped form of
// one cached body share one compression, counted once in the budget.
func TestBodyCacheGzipsOnce(t *testing.T) {
	c := newBodyCache(1 << 20)
	key := cacheKey{"acme/a", "hashes"}
	body := []byte(strings.Repeat("entry checksum ", 200))
	c.put(key, 3, "s3", body)
	got := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = c.gzipped(key, 3, "s3", body) })
	}
	wg.Wait()
	for _, gz := range got[1:] {
		if &gz[0] != &got[0][0] {
			t.Fatal("the body was compressed more than once")
		}
	}
	if want := int64(len(body) + len(got[0])); c.size != want {
		t.Errorf("size %d, want %d (body and its gzipped form)", c.size, want)
	}
	if gz := c.gzipped(key, 4, "s4", body); &gz[0] == &got[0][0] { // another version: not the cached form
		t.Error("a stale gzipped body was served")
	}
}
