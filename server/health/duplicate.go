package health

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// duplicates groups the topics whose normalized text is equal; each group
// of two or more is one finding, the one tidy keeps first: one an index
// links before one none does, then the one written first, then the
// shorter key (pool.md before pool-2.md), then by key.
// It returns the findings and, for each topic, the index in topics of
// the first topic of its group (itself when alone).
func duplicates(topics []topic, linked map[string]bool) ([]Finding, []int) {
	first := make(map[string]int, len(topics))
	rep := make([]int, len(topics))
	groups := map[int][]int{}
	var order []int
	for i, t := range topics {
		k := t.norm.key()
		j, ok := first[k]
		if !ok {
			first[k] = i
			rep[i] = i
			continue
		}
		rep[i] = j
		if groups[j] == nil {
			groups[j] = []int{j}
			order = append(order, j)
		}
		groups[j] = append(groups[j], i)
	}
	var out []Finding
	for _, j := range order {
		members := groups[j]
		slices.SortStableFunc(members, func(a, b int) int {
			return cmp.Or(boolCmp(linked[topics[b].key], linked[topics[a].key]), topics[a].updated.Compare(topics[b].updated),
				cmp.Compare(len(topics[a].key), len(topics[b].key)))
		})
		keys := make([]string, len(members))
		for i, m := range members {
			keys[i] = topics[m].key
		}
		out = append(out, Finding{
			Kind:       KindDuplicate,
			Keys:       keys,
			Detail:     fmt.Sprintf("%d topics hold the same text (ignoring case, white space and frontmatter order): %s", len(keys), strings.Join(keys, ", ")),
			Suggestion: fmt.Sprintf("fold %s into %s", strings.Join(keys[1:], ", "), keys[0]),
		})
	}
	return out, rep
}
