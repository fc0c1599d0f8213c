package agent

import (
	"fmt"
	"path"
	"strconv"
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
	if said != e.kept.lines[key] {
		if e.kept.lines == nil {
			e.kept.lines = map[string]string{}
		}
		e.kept.lines[key] = said
		if len(held) > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf(
				"%q: %d index lines held back until the files they link are shared: %s", key, len(held), QuoteList(held, 5)))
		}
	}
	return kept
}

// QuoteList quotes items (so that control characters cannot reach a
// terminal), separated by commas, at most most of them and then how many
// more there are.
func QuoteList(items []string, most int) string {
	var b strings.Builder
	for i, l := range items {
		if i == most {
			fmt.Fprintf(&b, " and %d more", len(items)-most)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(l))
	}
	return b.String()
}
