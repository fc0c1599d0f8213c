package agent

import (
	"errors"
	"path"
	"slices"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// ErrFolderUnavailable is wrapped by ScanDir's error when the team folder
// is missing or could not be read completely; the engine then pushes no
// deletions (the safety rail of spec/agent.md §2).
var ErrFolderUnavailable = errors.New("team folder unavailable")

// DefaultExtensions are the file name endings of push candidates.
var DefaultExtensions = []string{".md", ".txt"}

// ScanOptions tunes ScanDir.
type ScanOptions struct {
	// Extensions are the candidate endings, compared case-insensitively;
	// nil means DefaultExtensions.
	Extensions []string
	// MaxEntryBytes is the entry size limit; ≤ 0 means DefaultMaxEntryBytes.
	MaxEntryBytes int
	// Exclude names folders directly below the synced folder that are not
	// synced at all, compared case-insensitively: never scanned, and the
	// server's keys below them never written (personal sync leaves the
	// team folder, memory/team/, to the team sync; see Input.Exclude).
	Exclude []string
}

// excluded reports whether a slash path lies in (or is) an excluded
// folder.
func (o ScanOptions) excluded(p string) bool { return excludedKey(o.Exclude, p) }

// excludedKey reports whether the first segment of key is one of folders,
// compared case-insensitively.
func excludedKey(folders []string, key string) bool {
	first, _, _ := strings.Cut(key, "/")
	return slices.ContainsFunc(folders, func(f string) bool { return strings.EqualFold(f, first) })
}

// Snapshot is the team folder as read by ScanDir.
type Snapshot struct {
	// Checksums maps each pushable key to its entry checksum.
	Checksums map[string]string
	// Contents maps each pushable key to its content (ScanDir only; the
	// engine reads the few it needs).
	Contents map[string]string
	// Skipped lists the candidates that may not be pushed, in key order.
	Skipped []*SkipError
}

// SkippedKeys returns the keys of Skipped as a set, the LocalSkipped of an
// Input.
func (s *Snapshot) SkippedKeys() map[string]bool {
	out := make(map[string]bool, len(s.Skipped))
	for _, e := range s.Skipped {
		out[e.Key] = true
	}
	return out
}

// ScanDir reads the push candidates of the team folder dir (spec/agent.md
// §4): regular files with a candidate ending, not hidden (no segment starts
// with "."), not conflict copies; symbolic links are not followed. All reads
// go through an os.Root on dir. Each candidate is checked with CheckEntry.
// A missing folder, or any error reading it, returns an error wrapping
// ErrFolderUnavailable and no snapshot, so that nothing is deleted on the
// strength of a partial listing.
func ScanDir(dir string, opts ScanOptions) (*Snapshot, error) {
	v := newLocalView(opts)
	v.keep = true
	return v.snapshot(dir)
}

// isCandidate reports whether a slash path is a push candidate by name.
func (o ScanOptions) isCandidate(p string) bool {
	if protocol.IsConflictCopy(p) {
		return false
	}
	exts := o.Extensions
	if exts == nil {
		exts = DefaultExtensions
	}
	ext := strings.ToLower(path.Ext(p))
	return slices.ContainsFunc(exts, func(e string) bool { return strings.ToLower(e) == ext })
}
