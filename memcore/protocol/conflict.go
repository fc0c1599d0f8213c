package protocol

import (
	"path"
	"strings"
)

// ConflictMarker is the part of a conflict copy's file name
// (<name>.conflict-<UTC time>-<host>.md, spec/agent.md) that separates its stem
// from its time and host. It lives here because the agent that names the
// copies and the watcher that ignores them both read the key rules, and
// neither may import the other.
const ConflictMarker = ".conflict-"

// IsConflictCopy reports whether the last segment of a slash-separated path
// is a conflict copy's name (holds ConflictMarker). Conflict copies are
// never pushed, never watched as edits, never linted as topics.
func IsConflictCopy(p string) bool {
	return strings.Contains(path.Base(p), ConflictMarker)
}
