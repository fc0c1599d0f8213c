package agent

import (
	"slices"
	"sync"
	"testing"

	"github.com/teammem/teammem/api"
)

// TestPullWritesTopicsBeforeTheirIndex: a teammate adds topics and their
// index lines, and removes one with its line, while the local index also
// changed (a line-union merge): every topic file is written before the
// index that links it, and the removed topic goes after the index that
// no longer links it.
func TestPullWritesTopicsBeforeTheirIndex(t *testing.T) {
	for _, localIndexEdit := range []bool{false, true} {
		r := newRig(t, map[string]string{"MEMORY.md": "- [old](old.md)\n", "old.md": "old\n", "sub/MEMORY.md": ""}, nil, nil)
		r.sync(t)
		r.remote.apply(api.PutRequest{
			Entries: map[string]string{"MEMORY.md": "- [a](a.md)\n- [z](z.md)\n", "a.md": "a\n", "z.md": "z\n",
				"sub/MEMORY.md": "- [t](t.md)\n", "sub/t.md": "t\n"},
			SoftDeleteKeys: []string{"old.md"}})
		if localIndexEdit {
			writeTree(t, r.dir, map[string]string{"MEMORY.md": "- [old](old.md)\n- [mine](mine.md)\n", "mine.md": "mine\n"})
		}
		var mu sync.Mutex
		var order []string
		r.engine.onLocalChange = func(key string) { mu.Lock(); order = append(order, key); mu.Unlock() }
		r.sync(t)
		at := func(k string) int {
			i := slices.Index(order, k)
			if i < 0 {
				t.Fatalf("%s not written (order %v)", k, order)
			}
			return i
		}
		for _, c := range [][2]string{{"a.md", "MEMORY.md"}, {"z.md", "MEMORY.md"}, {"sub/t.md", "sub/MEMORY.md"}, {"MEMORY.md", "old.md"}} {
			if at(c[0]) > at(c[1]) {
				t.Errorf("local index edited %v: %s changed after %s (order %v)", localIndexEdit, c[0], c[1], order)
			}
		}
	}
}
