package health

import (
	"fmt"
	"strings"
)

// duplicates groups the topics whose normalized text is equal; each group
// of two or more is one finding, its keys in topic order (the first is
// the one tidy keeps). It returns the findings and, for each topic, the
// index of its group's first topic (itself when alone).
func duplicates(topics []topic) ([]Finding, []int) {
	first := make(map[string]int, len(topics))
	rep := make([]int, len(topics))
	groups := map[int][]string{}
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
			groups[j] = []string{topics[j].key}
			order = append(order, j)
		}
		groups[j] = append(groups[j], t.key)
	}
	var out []Finding
	for _, j := range order {
		keys := groups[j]
		out = append(out, Finding{
			Kind:       KindDuplicate,
			Keys:       keys,
			Detail:     fmt.Sprintf("%d topics hold the same text (ignoring case, white space and frontmatter order): %s", len(keys), strings.Join(keys, ", ")),
			Suggestion: fmt.Sprintf("fold %s into %s", strings.Join(keys[1:], ", "), keys[0]),
		})
	}
	return out, rep
}
