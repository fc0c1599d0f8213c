package watch

import (
	"path"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// Ignored reports whether a slash-separated path relative to the watched
// folder, a folder's when isDir, is noise the agent never syncs
// (spec/agent.md §3.4): hidden by protocol.HiddenFile or HiddenFolder (dot-files
// such as Emacs lock files ".#*" and memcore's temporary files
// ".teammem-tmp-*", and the dot-folders no key may name, such as ".git";
// ".trash" is synced), editor scratch files ("*.swp", "*.swx", "*~", vim's
// write test "4913", "*.tmp") and conflict copies ("*.conflict-*").
func Ignored(rel string, isDir bool) bool {
	if isDir && protocol.HiddenFolder(rel) || !isDir && protocol.HiddenFile(rel) {
		return true
	}
	base := path.Base(rel)
	switch {
	case base == "4913",
		strings.HasSuffix(base, "~"),
		strings.HasSuffix(base, ".swp"),
		strings.HasSuffix(base, ".swx"),
		strings.HasSuffix(base, ".tmp"),
		strings.Contains(base, protocol.ConflictMarker):
		return true
	}
	return false
}
