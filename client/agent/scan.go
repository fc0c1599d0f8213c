package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/teammem/teammem/memcore"
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
}

// Snapshot is the team folder as read by ScanDir.
type Snapshot struct {
	// Checksums maps each pushable key to its entry checksum.
	Checksums map[string]string
	// Contents maps each pushable key to its content.
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
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w: %v", dir, ErrFolderUnavailable, err)
	}
	defer root.Close()
	snap := &Snapshot{Checksums: map[string]string{}, Contents: map[string]string{}}
	fsys := root.FS()
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !opts.isCandidate(p) {
			return nil
		}
		return snap.add(fsys, p, opts.MaxEntryBytes)
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w: %v", dir, ErrFolderUnavailable, err)
	}
	slices.SortFunc(snap.Skipped, func(a, b *SkipError) int { return strings.Compare(a.Key, b.Key) })
	return snap, nil
}

// isCandidate reports whether a slash path is a push candidate by name.
func (o ScanOptions) isCandidate(p string) bool {
	if IsConflictCopy(p) {
		return false
	}
	exts := o.Extensions
	if exts == nil {
		exts = DefaultExtensions
	}
	ext := strings.ToLower(path.Ext(p))
	return slices.ContainsFunc(exts, func(e string) bool { return strings.ToLower(e) == ext })
}

// add reads one candidate into the snapshot.
func (s *Snapshot) add(fsys fs.FS, key string, maxBytes int) error {
	data, err := fs.ReadFile(fsys, key)
	if err != nil {
		return err
	}
	var skip *SkipError
	if err := CheckEntry(key, data, maxBytes); errors.As(err, &skip) {
		s.Skipped = append(s.Skipped, skip)
		return nil
	}
	s.Checksums[key] = memcore.EntryChecksum(data)
	s.Contents[key] = string(data)
	return nil
}
