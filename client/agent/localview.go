package agent

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/protocol"
)

// racyWindow is how close to the moment it was examined a file's
// modification time may be before the scan is not trusted again: a write
// within the same timestamp tick (coarse kernel clocks, 2 s on FAT) could
// change a file without changing its size or times.
const racyWindow = 2 * time.Second

// localView is the engine's copy of the team folder: every push candidate
// with the outcome of reading and checking it, and what the file looked
// like then (fileID), so that a file is read and scanned for secrets again
// only when it changed. A refresh walks the whole folder, except when a
// watcher reports every change (events) and no full walk is due: then only
// the paths marked changed are examined again. It is owned by the engine's
// goroutine.
type localView struct {
	opts   ScanOptions
	keep   bool                 // keep contents (ScanDir); the engine reads them when it needs them
	files  map[string]*fileScan // key → last scan; nil before the first walk
	events bool                 // a watcher marks every change: refresh may look at changed paths only
	rescan bool                 // a full walk is due
	dirty  map[string]bool      // paths to examine again
	now    func() time.Time
	// read reads a candidate, at most the entry size limit and one byte
	// (readLimited); a test injects faults through it.
	read func(fsys fs.FS, name string) ([]byte, error)
	// reads and walks count files read and full walks, for tests.
	reads, walks int
}

// fileScan is one candidate as last read.
type fileScan struct {
	id       fileID
	racy     bool // modified too close to its scan: read again when looked at
	checksum string
	content  string     // kept only by ScanDir's view (localView.keep)
	skip     *SkipError // why it may not be pushed; nil when it may
}

func newLocalView(opts ScanOptions) *localView {
	v := &localView{opts: opts, rescan: true, now: time.Now}
	v.read = v.readLimited
	return v
}

// maxBytes is the entry size limit.
func (v *localView) maxBytes() int {
	if v.opts.MaxEntryBytes <= 0 {
		return DefaultMaxEntryBytes
	}
	return v.opts.MaxEntryBytes
}

// readLimited reads at most the entry size limit and one byte of a file,
// enough to tell that it is over the limit without holding a huge file in
// memory.
func (v *localView) readLimited(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(v.maxBytes())+1))
}

// changed marks paths (slash-separated, relative to the folder; files or
// folders, existing or not) to be examined again by the next refresh.
func (v *localView) changed(paths ...string) {
	if v.dirty == nil {
		v.dirty = map[string]bool{}
	}
	for _, p := range paths {
		v.dirty[p] = true
	}
}

// watched says whether a watcher reports every change from now on; when
// it stops, every refresh walks the whole folder again.
func (v *localView) watched(on bool) {
	v.events = on
	if !on {
		v.rescan = true
	}
}

// rescanAll makes the next refresh walk the whole folder.
func (v *localView) rescanAll() { v.rescan = true }

// settled reports whether the folder is known not to have changed since
// the last refresh: a watcher reports changes, and none was reported.
func (v *localView) settled() bool {
	return v.events && !v.rescan && len(v.dirty) == 0 && v.files != nil
}

// snapshot refreshes the view from dir and returns it as a Snapshot. A
// folder that cannot be opened or walked completely gives an error wrapping
// ErrFolderUnavailable and no snapshot, and the next refresh walks again.
func (v *localView) snapshot(dir string) (*Snapshot, error) {
	if err := v.refresh(dir); err != nil {
		v.rescan = true
		return nil, fmt.Errorf("scan %s: %w: %v", dir, ErrFolderUnavailable, err)
	}
	return v.build(), nil
}

// refresh walks dir in full or examines the changed paths again.
func (v *localView) refresh(dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if v.rescan || v.files == nil || v.refreshPaths(root) != nil {
		return v.walkAll(root)
	}
	return nil
}

// walkAll rebuilds the view from a walk of the whole folder.
func (v *localView) walkAll(root *os.Root) error {
	files := map[string]*fileScan{}
	v.walks++
	if err := v.walk(root.FS(), ".", v.files, files); err != nil {
		return err
	}
	v.files, v.dirty, v.rescan = files, nil, !v.events
	return nil
}

// refreshPaths examines the changed paths again.
func (v *localView) refreshPaths(root *os.Root) error {
	for _, p := range slices.Sorted(maps.Keys(v.dirty)) {
		if err := v.refreshPath(root, p); err != nil {
			return err
		}
	}
	v.dirty = nil
	return nil
}

// refreshPath examines one changed path: a file is scanned (if it changed),
// a folder walked, and what is gone or no longer a candidate forgotten.
func (v *localView) refreshPath(root *os.Root, p string) error {
	if !fs.ValidPath(p) || p == "." {
		return fmt.Errorf("changed path %q: not below the folder", p)
	}
	old := v.take(p)
	if protocol.HiddenFolder(p) || v.opts.excluded(p) {
		return nil
	}
	if ok, err := realFolders(root, path.Dir(p)); !ok {
		return err // nil when gone with its folder or out of a walk's sight
	}
	fi, err := root.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.IsDir():
		return v.walk(root.FS(), p, old, v.files)
	case protocol.HiddenFile(p) || !v.opts.isCandidate(p):
		return nil
	case !fi.Mode().IsRegular():
		v.files[p] = notRegular(p)
		return nil
	}
	return v.add(root.FS(), p, fi, old[p], v.files)
}

// take removes p and every key below it from the view and returns their
// scans, for reuse by the walk that may follow.
func (v *localView) take(p string) map[string]*fileScan {
	out := map[string]*fileScan{}
	if s, ok := v.files[p]; ok {
		out[p] = s
		delete(v.files, p)
	}
	for k, s := range v.files {
		if strings.HasPrefix(k, p+"/") {
			out[k] = s
			delete(v.files, k)
		}
	}
	return out
}

// walk adds the candidates at and below the folder p to into, reusing the
// scans in old of files that did not change.
func (v *localView) walk(fsys fs.FS, p string, old, into map[string]*fileScan) error {
	return fs.WalkDir(fsys, p, func(q string, d fs.DirEntry, err error) error {
		switch {
		case err != nil && q != "." && errors.Is(err, fs.ErrNotExist):
			return nil // removed while walking: absent for now
		case err != nil:
			return err
		case q == ".":
			return nil
		case d.IsDir() && (protocol.HiddenFolder(q) || v.opts.excluded(q)):
			return fs.SkipDir
		case !d.IsDir() && protocol.HiddenFile(q):
			return nil
		case d.IsDir() || !v.opts.isCandidate(q):
			return nil
		case !d.Type().IsRegular():
			into[q] = notRegular(q)
			return nil
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		}
		return v.add(fsys, q, fi, old[q], into)
	})
}

// add scans one candidate into into, reusing old, its last scan, when the
// file did not change since (and old is not racy).
func (v *localView) add(fsys fs.FS, key string, fi fs.FileInfo, old *fileScan, into map[string]*fileScan) error {
	id := fileIDOf(fi)
	if old != nil && !old.racy && old.id == id {
		into[key] = old
		return nil
	}
	at := v.now()
	s := &fileScan{id: id, racy: !fi.ModTime().Before(at.Add(-racyWindow))}
	if fi.Size() > int64(v.maxBytes()) && protocol.ValidateKey(key) == nil {
		// Over the limit by its size: not read at all.
		s.skip = &SkipError{Key: key, Reason: ErrEntryTooLarge, Size: int(fi.Size())}
		into[key] = s
		return nil
	}
	v.reads++
	data, err := v.read(fsys, key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed since it was listed: absent for now
	} else if err != nil {
		return err
	}
	var skip *SkipError
	if err := CheckEntry(key, data, v.opts.MaxEntryBytes); errors.As(err, &skip) {
		if skip.Reason == ErrEntryTooLarge { // grew since the stat: data stops at the limit
			skip.Size = max(skip.Size, int(fi.Size()))
		}
		s.skip = skip
	} else {
		s.checksum = protocol.EntryChecksum(data)
		if v.keep {
			s.content = string(data)
		}
	}
	into[key] = s
	return nil
}

// notRegular is the scan of a candidate that is a symbolic link, a pipe
// or a device: reported skipped, so that nothing moves for it either way
// (replacing a synced file by a link must not delete the entry).
func notRegular(key string) *fileScan {
	return &fileScan{skip: &SkipError{Key: key, Reason: ErrNotRegular}}
}

// build returns the view as a Snapshot, with contents when the view keeps
// them.
func (v *localView) build() *Snapshot {
	snap := &Snapshot{Checksums: make(map[string]string, len(v.files)), Contents: make(map[string]string, len(v.files))}
	for k, s := range v.files {
		if s.skip != nil {
			snap.Skipped = append(snap.Skipped, s.skip)
			continue
		}
		snap.Checksums[k] = s.checksum
		if v.keep {
			snap.Contents[k] = s.content
		}
	}
	slices.SortFunc(snap.Skipped, func(a, b *SkipError) int { return strings.Compare(a.Key, b.Key) })
	return snap
}

// realFolders reports whether the slash path dir and each folder above it
// exist and are folders, not symbolic links, as a walk would find them.
// Errors other than a missing path are returned.
func realFolders(root *os.Root, dir string) (bool, error) {
	for ; dir != "."; dir = path.Dir(dir) {
		fi, err := root.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return false, nil
		case err != nil:
			return false, err
		case !fi.IsDir():
			return false, nil
		}
	}
	return true, nil
}

// content reads a candidate again for a push or a merge and checks it
// like a scan; the file is examined again by the next refresh, since it
// may have changed since the last one.
func (v *localView) content(dir, key string) (string, error) {
	v.changed(key)
	data, err := memcore.SafeRead(dir, key)
	if err != nil {
		return "", fmt.Errorf("read %q: %w", key, err)
	}
	if err := CheckEntry(key, data, v.opts.MaxEntryBytes); err != nil {
		return "", fmt.Errorf("read %q: %w", key, err)
	}
	return string(data), nil
}
