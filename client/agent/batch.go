package agent

import (
	"slices"
	"strings"

	"github.com/teammem/teammem/api"
)

// DefaultBatchBytes is the most content one push request carries
// (spec/agent.md §4).
const DefaultBatchBytes = 200_000

// Change is one key to push: new content, or a soft-delete.
type Change struct {
	Key     string
	Content string
	Delete  bool
}

// size is what a change counts against a batch's budget: its key and content.
func (c Change) size() int { return len(c.Key) + len(c.Content) }

// Batches splits changes, in key order, into push requests of at most
// maxBytes of keys and content each (maxBytes ≤ 0 means DefaultBatchBytes).
// A change larger than maxBytes goes alone in its batch. The order of
// batches is the key order, so a retried push resumes where it stopped.
func Batches(changes []Change, maxBytes int) []api.PutRequest {
	if maxBytes <= 0 {
		maxBytes = DefaultBatchBytes
	}
	sorted := slices.Clone(changes)
	slices.SortFunc(sorted, func(a, b Change) int { return strings.Compare(a.Key, b.Key) })
	var out []api.PutRequest
	var cur api.PutRequest
	used := 0
	for _, c := range sorted {
		if used > 0 && used+c.size() > maxBytes {
			out = append(out, cur)
			cur, used = api.PutRequest{}, 0
		}
		addChange(&cur, c)
		used += c.size()
	}
	if used > 0 || len(cur.Entries)+len(cur.SoftDeleteKeys) > 0 {
		out = append(out, cur)
	}
	return out
}

// addChange adds one change to a request.
func addChange(req *api.PutRequest, c Change) {
	if c.Delete {
		req.SoftDeleteKeys = append(req.SoftDeleteKeys, c.Key)
		return
	}
	if req.Entries == nil {
		req.Entries = map[string]string{}
	}
	req.Entries[c.Key] = c.Content
}
