// Package teamblock renders the managed block that brings a repository's
// team memory to the model: no Claude Code version loads the team folder on
// its own, but every version loads the checkout's CLAUDE.local.md, so the
// agent keeps this block there (spec/agent.md §1). The block holds a
// heading, short guidance with the team folder's absolute path, and the
// team index: the lines of the team folder's MEMORY.md with their links
// rewritten to absolute paths inside the team folder, cut to the MEMORY.md
// budget.
//
// Index lines are written by teammates and treated as hostile: a link is
// produced only to a file inside the team folder, every other character
// that could start a link, an image, HTML, a code fence or an @include is
// neutralised, and the text between the markers can never hold a marker or
// an HTML comment. Rendering is pure: the caller reads the index and says
// which files exist and which the agent refused to share. The package also
// keeps the block in its place: the checkouts that get it (a repository's
// worktrees), the splice into CLAUDE.local.md that keeps the user's text
// byte for byte, and git's info/exclude; the sync engine only calls it.
package teamblock

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/teammem/teammem/memcore/protocol"

	"github.com/teammem/teammem/memcore"
)

// The marker lines around the block. HTML comments are stripped before a
// file reaches the model, so the markers are invisible to it.
const (
	Begin = "<!-- teammem:begin -->"
	End   = "<!-- teammem:end -->"
)

// IndexKey is the team index's key in the team folder.
const IndexKey = protocol.IndexName

// Input is what a block is made of.
type Input struct {
	// Repo is the repository's canonical slug.
	Repo string
	// TeamDir is the team folder's absolute path.
	TeamDir string
	// Index is the content of the team folder's MEMORY.md, "" when missing.
	Index string
	// Exists reports whether key is a regular file in the team folder; an
	// index line that links to a key that does not exist is left out. Nil
	// means every key exists.
	Exists func(key string) bool
	// Refused reports whether the agent refused to share key (a credential
	// in it, not UTF-8, too large, refused by the server). An index line
	// that links to such a key is left out; when the index itself is
	// refused, no index line is shown. Nil means none is refused.
	Refused func(key string) bool
	// Stale, when set, says what may be out of date in the topic key: an
	// index line that links to it ends with a warning naming it, so that
	// the model checks the code before trusting the memory. Nil: nothing.
	Stale func(key string) Stale
	// MCP says the assistant has the teammem MCP server: the guidance
	// names its search_memories tool.
	MCP bool
	// Orgs are the org memories of the repository, nearest first: their
	// indexes follow the team index's, within one budget. One whose index
	// is empty is left out.
	Orgs []Org
	// Unsynced, when not zero, is when teammem stopped syncing the team
	// folder (the server refuses its token): the block says that the
	// index is as of then and teammates' later memories are missing.
	Unsynced time.Time
}

// Stale is what may be out of date in one topic.
type Stale struct {
	// Refs are its code references that the checkout's HEAD does not
	// hold, as written (teammate-controlled text: the block escapes it).
	Refs []string
	// Days is how long nobody changed or confirmed it, when that is over
	// the configured limit; 0 otherwise.
	Days int
}

// Block is a rendered block.
type Block struct {
	// Text runs from the Begin line to the End line, each line ending in
	// a line feed.
	Text string
	// Truncated says the index was cut to the budget (the block then ends
	// with a warning line).
	Truncated bool
	// Omitted counts the index lines left out: links to refused or
	// missing files, to invalid keys or outside the team folder.
	Omitted int
}

// Render builds the block for in. The same input always gives the same
// text, so that a caller can compare blocks to avoid needless writes.
func Render(in Input) Block {
	teamDir := strings.TrimRight(filepath.ToSlash(in.TeamDir), "/")
	var b strings.Builder
	b.WriteString(Begin + "\n")
	writeGuidance(&b, in.Repo, teamDir, in.MCP)
	index, omitted := renderIndex(in, teamDir)
	out := Block{Omitted: omitted}
	if !in.Unsynced.IsZero() {
		fmt.Fprintf(&b, "Out of date: teammem has not synced the team folder since %s (the server refuses its token), "+
			"so memories teammates shared since then are missing; `teammem-agent status` says how to fix it.\n\n",
			in.Unsynced.UTC().Format(time.DateOnly))
	}
	orgs, parts, orgOmitted := renderOrgs(in.Orgs)
	out.Omitted += orgOmitted
	var text string
	switch {
	case in.Refused != nil && in.Refused(IndexKey):
		text = "The team index is not shown: teammem does not share the team folder's `MEMORY.md` as it is (see `teammem-agent status`)."
	case index == "":
		text = "The team index is empty: nobody has shared a team memory for this repository yet."
	case len(parts) > 0:
		text = guardAt(index) // cut with the org memories' below
	default:
		indexPath := escapeText(teamDir + "/" + IndexKey)
		text, out.Truncated = memcore.TruncateIndexLines(indexPath, guardAt(index)) // a rendered line cut in two could expose the links inside a destination
	}
	if len(parts) > 0 {
		text, out.Truncated = fitIndexes(text, orgs, parts)
	}
	b.WriteString(text + "\n")
	b.WriteString("\n" + End + "\n")
	out.Text = guardAt(b.String()) // the index is guarded already (before the cut, to keep to the budget): this guards the rest
	return out
}

// renderIndex renders the index lines that are kept, joined by line feeds,
// and counts those left out. Blank lines at either end are dropped. Fenced
// code is text: its links are no index entries (protocol.IndexLines), so
// they are neither links in the block nor reasons to leave a line out.
func renderIndex(in Input, teamDir string) (string, int) {
	if in.Refused != nil && in.Refused(IndexKey) {
		return "", 0
	}
	_, body, _ := memcore.ParseFrontmatter(strings.TrimPrefix(in.Index, "\uFEFF"))
	r := lineRenderer{teamDir: teamDir, exists: in.Exists, refused: in.Refused, stale: in.Stale}
	var lines []string
	omitted := 0
	var fence protocol.Fence
	for _, line := range strings.Split(body, "\n") {
		if fence.Code(strings.TrimSuffix(line, "\r")) {
			lines = append(lines, escapeText(cleanLine(line)))
			continue
		}
		out, ok := r.render(line)
		if !ok {
			omitted++
			continue
		}
		lines = append(lines, out)
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n"), omitted
}
