package agent

import (
	"path"

	"github.com/teammem/teammem/memcore/protocol"
)

// isIndex reports whether key names an index file (at any depth of the
// team folder): a list of independent lines, merged by linediff.MergeLines
// and never given a conflict copy.
func isIndex(key string) bool { return path.Base(key) == protocol.IndexName }
