package teamblock

import (
	"fmt"
	"slices"
	"strings"

	"github.com/teammem/teammem/client/assistants"
)

// indexHeading is the line of a rendered block after which (and a blank
// line) the index lines run, up to the blank line before End.
const indexHeading = "## Team index\n"

// cutBlock fits a rendered block into room (in t's unit) by dropping
// whole index lines from its end and saying so in a last line; ok is false
// when even the block without any index line does not fit.
func cutBlock(block string, room int, t assistants.Assistant) (string, bool) {
	if t.Size(block) <= room {
		return block, true
	}
	lines := strings.SplitAfter(block, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	start := -1
	for i, l := range lines {
		if l == indexHeading {
			start = i + 2
			break
		}
	}
	if start < 0 || start > len(lines)-2 {
		return "", false
	}
	head, index, tail := lines[:start], lines[start:len(lines)-2], lines[len(lines)-2:]
	warning := fmt.Sprintf("The team index was cut to fit %s's limit of %d %s: the rest is in the team folder's MEMORY.md.\n",
		t.Product, t.Budget, t.BudgetUnit())
	owner := indexOwners(index)
	for n := len(index); n >= 0; n-- {
		kept := index[:n]
		if owner != nil {
			warning = fmt.Sprintf("The index was cut to fit %s's limit of %d %s: %s left out; the rest is in their folders' MEMORY.md.\n",
				t.Product, t.Budget, t.BudgetUnit(), droppedParts(trimEOL(index[n:]), owner[n:]))
		}
		cut := strings.Join(head, "") + strings.Join(kept, "")
		if n > 0 {
			cut += "\n"
		}
		cut += warning + strings.Join(tail, "")
		if t.Size(cut) <= room {
			return cut, true
		}
	}
	return "", false
}

// indexOwners names the part of the block each index line belongs to (the
// team index, or an org memory from its heading on); nil when the block
// carries no org memory.
func indexOwners(index []string) []string {
	if !slices.ContainsFunc(index, func(l string) bool { return strings.HasPrefix(l, orgHeading) }) {
		return nil
	}
	owner := make([]string, len(index))
	who := "the team index"
	for i, l := range index {
		if ns, ok := strings.CutPrefix(l, orgHeading); ok {
			who = "the org memory of " + strings.TrimSpace(ns)
		}
		owner[i] = who
	}
	return owner
}

// trimEOL returns lines without their line feeds.
func trimEOL(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSuffix(l, "\n")
	}
	return out
}
