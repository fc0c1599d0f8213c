package protocol

import (
	"net/url"
	"regexp"
	"strings"
)

// indexLinkRe matches an inline Markdown link target: [text](target "title").
var indexLinkRe = regexp.MustCompile(`\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)

// IndexLinks returns the local targets of the inline Markdown links of one
// line of a MEMORY.md index (`- [Title](file.md) — hook`), relative to the
// index's folder: URL-unescaped, without a #fragment or a leading "./". Web,
// mail and in-page links are left out. Both the index lint and the MCP
// tools that keep the index in step with the topics (write_memory,
// delete_memory) read links this way.
func IndexLinks(line string) []string {
	var out []string
	for _, m := range indexLinkRe.FindAllStringSubmatch(line, -1) {
		if t, ok := localTarget(m[1]); ok {
			out = append(out, t)
		}
	}
	return out
}

// localTarget strips the fragment and unescapes a link target; ok is false
// for URLs with a scheme and in-page anchors.
func localTarget(t string) (string, bool) {
	if strings.HasPrefix(t, "#") || strings.Contains(t, "://") || strings.HasPrefix(strings.ToLower(t), "mailto:") {
		return "", false
	}
	if i := strings.IndexByte(t, '#'); i >= 0 {
		t = t[:i]
	}
	if u, err := url.PathUnescape(t); err == nil {
		t = u
	}
	t = strings.TrimPrefix(t, "./")
	return t, t != ""
}

// IndexFenceToggle reports whether an index line opens or closes a fenced
// code block (``` or ~~~ after leading spaces); links inside fenced code
// are not index entries.
func IndexFenceToggle(line string) bool {
	t := strings.TrimLeft(line, " ")
	return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
}
