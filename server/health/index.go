package health

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// The index: MEMORY.md at the top of the repository is what the client
// loads; its lines link the topics. A sub-index is a topic the index
// links to hold index lines the budget has no room for: MEMORY-<n>.md at
// the top (tidy writes them). A MEMORY.md in a folder indexes its folder.
// Links are read with memcore/protocol's index-line parser, the one every
// surface uses.

// RootIndex is the index the client loads.
const RootIndex = "MEMORY.md"

var subIndexName = regexp.MustCompile(`^MEMORY-[0-9]+\.md$`)

// IsIndex reports whether key is an index: a MEMORY.md, in any folder,
// or a sub-index.
func IsIndex(key string) bool {
	return path.Base(key) == RootIndex || subIndexName.MatchString(key)
}

// SubIndexKey is the key of the n-th sub-index (n ≥ 2).
func SubIndexKey(n int) string { return fmt.Sprintf("MEMORY-%d.md", n) }

// indexLinks returns, for each index among topics, its lines and the keys
// they link.
func indexLinks(topics []topic) map[string][]protocol.IndexLine {
	out := map[string][]protocol.IndexLine{}
	for _, t := range topics {
		if t.index {
			dir := path.Dir(t.key)
			if dir == "." {
				dir = ""
			}
			out[t.key] = protocol.IndexLines(dir, t.content)
		}
	}
	return out
}

// danglingLinks returns a finding for each index line linking a key that
// is not live: the index's key, the line and the missing key.
func danglingLinks(topics []topic, live map[string]bool, idx map[string][]protocol.IndexLine) []Finding {
	var out []Finding
	for _, t := range topics {
		for n, l := range idx[t.key] {
			for _, k := range l.Keys {
				if live[k] {
					continue
				}
				out = append(out, Finding{
					Kind:       KindDanglingLink,
					Keys:       []string{t.key},
					Missing:    k,
					Detail:     fmt.Sprintf("line %d of %s links %s, which does not exist: %s", n+1, t.key, k, strings.TrimSpace(l.Text)),
					Suggestion: fmt.Sprintf("remove the line from %s, or restore %s", t.key, k),
				})
			}
		}
	}
	return out
}

// linkedKeys returns the keys some index line links.
func linkedKeys(idx map[string][]protocol.IndexLine) map[string]bool {
	linked := map[string]bool{}
	for _, lines := range idx {
		for _, l := range lines {
			for _, k := range l.Keys {
				linked[k] = true
			}
		}
	}
	return linked
}

// orphans returns a finding for each topic that no index links (the root
// index aside).
func orphans(topics []topic, idx map[string][]protocol.IndexLine) []Finding {
	linked := linkedKeys(idx)
	var out []Finding
	for _, t := range topics {
		if t.key == RootIndex || linked[t.key] {
			continue
		}
		out = append(out, Finding{
			Kind:       KindOrphanTopic,
			Keys:       []string{t.key},
			Detail:     fmt.Sprintf("no index line links %s, so the model is never pointed at it", t.key),
			Suggestion: fmt.Sprintf("add a line linking %s to %s", t.key, RootIndex),
		})
	}
	return out
}

// LoadedLines returns how many lines of an index the client loads: the
// first protocol.MaxIndexLines, then as many whole lines as fit in
// protocol.MaxIndexBytes. Trailing white space is not counted.
func LoadedLines(content string) (loaded, total int) {
	body := strings.TrimRight(content, " \t\r\n")
	size := 0
	for l := range strings.Lines(body) {
		total++
		if loaded == total-1 && total <= protocol.MaxIndexLines && size+len(strings.TrimRight(l, "\r\n")) <= protocol.MaxIndexBytes {
			loaded++
		}
		size += len(l)
	}
	return loaded, total
}

// overBudget returns a finding when the root index runs past what the
// client loads.
func overBudget(topics []topic) []Finding {
	for _, t := range topics {
		if t.key != RootIndex {
			continue
		}
		loaded, total := LoadedLines(t.content)
		if loaded == total {
			return nil
		}
		return []Finding{{
			Kind: KindIndexOverBudget,
			Keys: []string{RootIndex},
			Detail: fmt.Sprintf("%s has %d lines (%d bytes); the client loads %d lines, at most %d lines and %d bytes: lines %d to %d are never seen",
				RootIndex, total, len(t.content), loaded, protocol.MaxIndexLines, protocol.MaxIndexBytes, loaded+1, total),
			Suggestion: fmt.Sprintf("move the oldest index lines into a sub-index (%s) linked from %s", SubIndexKey(2), RootIndex),
		}}
	}
	return nil
}
