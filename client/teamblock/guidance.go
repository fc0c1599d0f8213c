package teamblock

import (
	"fmt"
	"strings"
)

// writeGuidance writes the heading and the guidance for the model, in the
// spirit of Claude Code's own team memory instructions: where the team
// folder is, what belongs there and what never does, how to add a memory,
// to look one up with the MCP server's search_memories tool when the
// assistant has it, and to check a memory against the code before relying
// on it.
func writeGuidance(b *strings.Builder, repo, teamDir string, mcp bool) {
	folder := inlinePath(teamDir + "/")
	fmt.Fprintf(b, "# Team memory of %s (shared with the team, synced by teammem)\n\n", escapeText(repo))
	fmt.Fprintf(b, "This is the shared memory of everyone working on %s. It lives in the team folder %s, "+
		"which teammem keeps in step with your teammates' copies. teammem rewrites this section whenever the team index changes: "+
		"change the files in the team folder, not these lines.\n\n", escapeText(repo), folder)
	b.WriteString("- What belongs there: facts and decisions useful to everyone on this repository that the code does not tell " +
		"— why something is the way it is, agreements, pitfalls, where outside resources live.\n")
	b.WriteString("- What never belongs there: personal preferences (keep those in your private memory), secrets or credentials " +
		"of any kind (teammem refuses to share a file that holds one), and anything the code, the git history or a CLAUDE.md already says.\n")
	fmt.Fprintf(b, "- To add a memory: write a topic file in the team folder with the usual frontmatter (`name`, `description`, `type`), "+
		"then add one line `- [Title](file.md) — one-line hook` for it to %s. Keep each index line short; the detail goes in the topic file.\n",
		inlinePath(teamDir+"/"+IndexKey))
	if mcp {
		b.WriteString("- To find the team memories about a subject, call the `search_memories` tool of the teammem MCP server; " +
			"`read_memory` reads one whole.\n")
	}
	b.WriteString("- Before relying on a team memory, check it against the code: a memory that names a file, function or flag says it existed " +
		"when the memory was written. When one is wrong or out of date, update or remove its topic file and its index line.\n\n")
	b.WriteString("## Team index\n\n")
}
