package health

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
)

// editIndexes drops the index lines linking a topic the plan deletes
// (a folded duplicate, whose group's first topic keeps its own line; an
// archived topic) and, when dangling links are fixed, a missing one.
func (t *tidy) editIndexes() {
	for _, ik := range t.indexKeys() {
		var b strings.Builder
		changed := false
		for _, l := range protocol.IndexLines(indexDir(ik), t.indexContent(ik)) {
			if t.keepLine(ik, l) {
				b.WriteString(l.Text)
			} else {
				changed = true
			}
		}
		if changed {
			t.content[ik] = b.String()
		}
	}
}

// keepLine reports whether an index line stays.
func (t *tidy) keepLine(index string, l protocol.IndexLine) bool {
	for _, k := range l.Keys {
		switch {
		case t.gone[k] != "":
			return false
		case t.live[k].Key == "" && t.picked[index+"\x00"+k]:
			t.fixes = append(t.fixes, fmt.Sprintf("remove the line of %s linking %s, which does not exist", index, k))
			return false
		}
	}
	return true
}

// linkOrphans adds to MEMORY.md a line for each topic no index links:
// those the plan's own edits left unlinked, and (when orphans are fixed)
// those no index linked before.
func (t *tidy) linkOrphans(linkedBefore map[string]bool) {
	linked := t.linked()
	var add []string
	for _, k := range slices.Sorted(maps.Keys(t.live)) {
		if k == RootIndex || t.gone[k] != "" || linked[k] {
			continue
		}
		if !linkedBefore[k] && !t.picked[k] {
			continue
		}
		add = append(add, indexLineFor(k, t.live[k].Content))
		if !linkedBefore[k] {
			t.fixes = append(t.fixes, fmt.Sprintf("link %s from %s", k, RootIndex))
		}
	}
	if len(add) == 0 {
		return
	}
	c := t.indexContent(RootIndex)
	if c != "" && !strings.HasSuffix(c, "\n") {
		c += "\n"
	}
	t.content[RootIndex] = c + strings.Join(add, "")
}

// indexLineFor is an index line linking key, titled by its frontmatter
// name (else its key) and its description when it has one.
func indexLineFor(key, content string) string {
	fm, _, _ := protocol.SplitFrontmatter(content)
	title := cleanTitle(fm.Name)
	if title == "" {
		title = cleanTitle(strings.TrimSuffix(key, ".md"))
	}
	line := "- [" + title + "](" + protocol.LinkDest(key) + ")"
	if d := cleanTitle(fm.Description); d != "" {
		line += " — " + d
	}
	if keys := protocol.LinkedKeys("", line); len(keys) != 1 || keys[0] != key {
		line = "- [topic](" + protocol.LinkDest(key) + ")"
	}
	return line + "\n"
}

// cleanTitle is s on one line without the characters that would end or
// open a link, at most 100 bytes.
func cleanTitle(s string) string {
	s = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if strings.ContainsRune("[]()<>`\\", r) || hiddenRune(r) {
			return ' '
		}
		return r
	}, s)), " ")
	for len(s) > 100 {
		_, size := lastRune(s)
		s = s[:len(s)-size]
	}
	return s
}

// fitBudget moves the oldest index lines of MEMORY.md (by their topics'
// last change) into sub-indexes until what remains, with a line linking
// each new sub-index, is within what the client loads.
func (t *tidy) fitBudget() {
	content := t.indexContent(RootIndex)
	if loaded, total := LoadedLines(content); loaded == total {
		return
	}
	lines := protocol.IndexLines("", content)
	order := t.movable(lines)
	if len(order) == 0 {
		return
	}
	fits := func(m int) (string, []string) { return t.moveOldest(lines, order[:m]) }
	lo, hi := 1, len(order)
	for lo < hi {
		mid := (lo + hi) / 2
		if root, _ := fits(mid); within(root) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	root, subs := fits(lo)
	t.content[RootIndex] = root
	for i, sub := range subs {
		t.content[t.subIndex(i)] = sub
	}
	t.fixes = append(t.fixes, fmt.Sprintf("move the %d oldest lines of %s into %d sub-index topic(s)", lo, RootIndex, len(subs)))
}

// within reports whether the client loads all of an index.
func within(content string) bool {
	loaded, total := LoadedLines(content)
	return loaded == total
}

// movable returns the numbers of the lines that may move (they link
// topics, no index), oldest topic first, earlier line first.
func (t *tidy) movable(lines []protocol.IndexLine) []int {
	var out []int
	age := map[int]time.Time{}
	for i, l := range lines {
		if len(l.Keys) == 0 || slices.ContainsFunc(l.Keys, IsIndex) {
			continue
		}
		out = append(out, i)
		for _, k := range l.Keys {
			if u := t.live[k].UpdatedAt; age[i].IsZero() || u.Before(age[i]) {
				age[i] = u
			}
		}
	}
	slices.SortStableFunc(out, func(a, b int) int { return cmp.Compare(age[a].UnixNano(), age[b].UnixNano()) })
	return out
}

// moveOldest returns MEMORY.md without the lines move and with a line
// linking each sub-index, and the sub-indexes holding those lines in
// their order, each within the budget.
func (t *tidy) moveOldest(lines []protocol.IndexLine, move []int) (string, []string) {
	moving := make([]bool, len(lines))
	for _, i := range move {
		moving[i] = true
	}
	var root strings.Builder
	var subs []string
	var cur strings.Builder
	for i, l := range lines {
		text := l.Text
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if !moving[i] {
			root.WriteString(text)
			continue
		}
		if !within(cur.String() + text) {
			subs = append(subs, cur.String())
			cur.Reset()
		}
		cur.WriteString(text)
	}
	if cur.Len() > 0 {
		subs = append(subs, cur.String())
	}
	for i := range subs {
		fmt.Fprintf(&root, "- [Older index entries, part %d](%s)\n", i+1, protocol.LinkDest(t.subIndex(i)))
	}
	return root.String(), subs
}

// subIndex is the key of the plan's i-th new sub-index: the i-th
// MEMORY-<n>.md free in the repository.
func (t *tidy) subIndex(i int) string {
	for n := 2; ; n++ {
		k := SubIndexKey(n)
		if t.live[k].Key != "" {
			continue
		}
		if i == 0 {
			return k
		}
		i--
	}
}

// result returns the changes made.
func (t *tidy) result() TidyPlan {
	p := TidyPlan{Repo: t.in.Repo, Base: t.in.Version, Fixes: t.fixes}
	for k, why := range t.gone {
		p.Changes = append(p.Changes, Change{Key: k, Delete: true, Note: why})
	}
	for k, c := range t.content {
		if c != t.live[k].Content {
			p.Changes = append(p.Changes, Change{Key: k, Content: c, Note: "tidy: index"})
		}
	}
	slices.SortFunc(p.Changes, func(a, b Change) int { return strings.Compare(a.Key, b.Key) })
	return p
}
