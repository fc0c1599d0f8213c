package teamblock

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/protocol"
)

// Org is an org memory the block carries after the repository's own
// index: the memory of a namespace the repository lies in
// (protocol.OrgMemories), synced into a folder of its own.
type Org struct {
	// Repo is the org memory's slug (acme/.memory).
	Repo string
	// Dir is its folder's absolute path.
	Dir string
	// Index is the content of the folder's MEMORY.md, "" when missing.
	Index string
	// Exists and Refused are Input's, for the org folder.
	Exists  func(key string) bool
	Refused func(key string) bool
}

// orgHeading starts the heading line of each org memory's part of the
// block; cutBlock names the parts it cuts by it.
const orgHeading = "### Org memory of "

// renderOrgs renders the part of every org memory whose index is not
// empty: a heading, where its folder is, and its index lines; with the
// org memories shown (kept[i] is parts[i]'s) and the lines left out of
// them. An org memory nobody wrote costs the block nothing.
func renderOrgs(orgs []Org) (kept []Org, parts []string, omitted int) {
	for _, o := range orgs {
		dir := strings.TrimRight(filepath.ToSlash(o.Dir), "/")
		refused := o.Refused != nil && o.Refused(IndexKey)
		index, n := renderIndex(Input{Index: o.Index, Exists: o.Exists, Refused: o.Refused}, dir)
		omitted += n
		if index == "" && !refused {
			continue
		}
		var b strings.Builder
		ns := protocol.OrgNamespace(o.Repo)
		fmt.Fprintf(&b, "%s%s\n\n", orgHeading, escapeText(ns))
		fmt.Fprintf(&b, "Shared by every repository of %s (the repository %s), synced into the org folder %s. "+
			"Add to it there as to the team folder; the server takes the change from those who may write %s.\n\n",
			escapeText(ns), escapeText(o.Repo), inlinePath(dir+"/"), escapeText(o.Repo))
		if refused {
			b.WriteString("Its index is not shown: teammem does not share its `MEMORY.md` as it is.")
		} else {
			b.WriteString(guardAt(index))
		}
		kept, parts = append(kept, o), append(parts, b.String())
	}
	return kept, parts, omitted
}

// fitIndexes joins the repository's index (team, already guarded) and the
// org parts into one index within memcore's index budget, the
// repository's own lines first: what does not fit is left out from the
// end, and a last line says what was left out and where it is.
func fitIndexes(team string, orgs []Org, parts []string) (string, bool) {
	var lines []string
	owner := []string{} // the part each line belongs to
	add := func(text, who string) {
		for _, l := range strings.Split(text, "\n") {
			lines = append(lines, l)
			owner = append(owner, who)
		}
	}
	add(team, "the team index")
	for i, p := range parts {
		add("", "")
		add(p, "the org memory of "+protocol.OrgNamespace(orgs[i].Repo))
	}
	keep, size := 0, 0
	for keep < len(lines) && keep < memcore.MaxIndexLines && size+len(lines[keep])+1 <= memcore.MaxIndexBytes {
		size += len(lines[keep]) + 1
		keep++
	}
	text := strings.TrimRight(strings.Join(lines[:keep], "\n"), "\n")
	if keep == len(lines) {
		return text, false
	}
	text += "\n\n" + fmt.Sprintf("The index was cut to %d lines and %d bytes: %s left out; the rest is in their folders' MEMORY.md.",
		memcore.MaxIndexLines, memcore.MaxIndexBytes, droppedParts(lines[keep:], owner[keep:]))
	return text, true
}

// droppedParts says how many lines of which parts are in dropped (owner
// names each line's part; "" a separator).
func droppedParts(dropped, owner []string) string {
	var out []string
	n, who := 0, ""
	flush := func() {
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s of %s", n, plural(n, "line", "lines"), who))
		}
	}
	for i := range dropped {
		if owner[i] == "" || strings.TrimSpace(dropped[i]) == "" {
			continue
		}
		if owner[i] != who {
			flush()
			n, who = 0, owner[i]
		}
		n++
	}
	flush()
	return strings.Join(out, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
