package agent

import (
	"fmt"
	"path"
	"strings"

	"github.com/teammem/teammem/client/teamblock"
)

// shareIndex returns the content of key to push: for an index
// (MEMORY.md at any depth), without the lines that link a file the agent
// does not share (withheld: a credential in it, too large, refused by the
// server), so that no teammate gets a link to a file that never reaches
// them. The lines stay in the local file and are pushed once their file
// is shared. What is held back is said once per change, in a warning.
func (e *Engine) shareIndex(key, content string, r *Report) string {
	if !isIndex(key) {
		return content
	}
	kept, held := teamblock.HoldBack(content, path.Dir(key), e.withheld)
	said := strings.Join(held, "\n")
	if said != e.heldLines[key] {
		if e.heldLines == nil {
			e.heldLines = map[string]string{}
		}
		e.heldLines[key] = said
		if len(held) > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf(
				"%q: %d index lines held back until the files they link are shared: %s", key, len(held), quoteLines(held)))
		}
	}
	return kept
}

// quoteLines quotes lines (control characters cannot reach a terminal),
// at most 5 of them.
func quoteLines(lines []string) string {
	const most = 5
	var b strings.Builder
	for i, l := range lines {
		if i == most {
			fmt.Fprintf(&b, " and %d more", len(lines)-most)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", l)
	}
	return b.String()
}
