package watch

import (
	"path"
	"strings"
)

// Ignored reports whether a slash-separated path relative to the watched
// folder is noise the agent never syncs (spec/agent.md §3.4): any segment
// that starts with "." (dot-files and dot-folders, Emacs lock files ".#*",
// memcore's temporary files ".teammem-tmp-*"), editor scratch files
// ("*.swp", "*.swx", "*~", vim's write test "4913", "*.tmp") and conflict
// copies ("*.conflict-*").
func Ignored(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	base := path.Base(rel)
	switch {
	case base == "4913",
		strings.HasSuffix(base, "~"),
		strings.HasSuffix(base, ".swp"),
		strings.HasSuffix(base, ".swx"),
		strings.HasSuffix(base, ".tmp"),
		strings.Contains(base, ".conflict-"):
		return true
	}
	return false
}
