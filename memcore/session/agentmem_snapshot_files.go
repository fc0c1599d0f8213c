package session

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/protocol"
)

// copySnapshot copies every snapshot file whose relative path is a valid key
// (so Markdown and text files, no dot-files, no symlinks) into the memory
// folder, atomically, then records the snapshot date. Both folders are
// os.Roots, so no symlink inside either leads out.
func copySnapshot(mem, snap *os.Root, updated time.Time) ([]string, error) {
	keys, err := snapshotKeys(snap)
	if err != nil {
		return nil, fmt.Errorf("copy agent snapshot: %w", err)
	}
	for _, key := range keys {
		data, err := snap.ReadFile(filepath.FromSlash(key))
		if err != nil {
			return nil, fmt.Errorf("copy agent snapshot: %w", err)
		}
		if err := memcore.WriteInRoot(mem, key, data, memcore.WriteOptions{Perm: memcore.DefaultFilePerm, DirPerm: memcore.DefaultDirPerm}); err != nil {
			return nil, fmt.Errorf("copy agent snapshot: %w", err)
		}
	}
	return keys, writeSyncedFrom(mem, updated)
}

// snapshotKeys lists the snapshot's copyable regular files as keys, in
// lexical order. Symlinks are neither listed nor followed.
func snapshotKeys(snap *os.Root) ([]string, error) {
	var keys []string
	err := fs.WalkDir(snap.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		if p != SnapshotMetaName && protocol.ValidateKey(p) == nil {
			keys = append(keys, p)
		}
		return nil
	})
	return keys, err
}

// snapshotDate dates a snapshot folder: snapshot.json's updatedAt, else the
// newest modification time of its files. ok is false when the folder holds no
// copyable file.
func snapshotDate(snap *os.Root) (t time.Time, ok bool, err error) {
	keys, err := snapshotKeys(snap)
	if err != nil || len(keys) == 0 {
		return time.Time{}, false, err
	}
	var meta struct {
		UpdatedAt time.Time `json:"updatedAt"`
	}
	if data, err := readRegular(snap, SnapshotMetaName); err == nil && json.Unmarshal(data, &meta) == nil && !meta.UpdatedAt.IsZero() {
		return meta.UpdatedAt, true, nil
	}
	for _, k := range keys {
		if info, err := snap.Lstat(filepath.FromSlash(k)); err == nil && info.ModTime().After(t) {
			t = info.ModTime()
		}
	}
	return t, true, nil
}

// readSyncedFrom returns the recorded snapshot date, zero when none.
func readSyncedFrom(mem *os.Root) time.Time {
	var rec struct {
		SyncedFrom time.Time `json:"syncedFrom"`
	}
	data, err := readRegular(mem, SnapshotSyncedName)
	if err != nil || json.Unmarshal(data, &rec) != nil {
		return time.Time{}
	}
	return rec.SyncedFrom
}

// writeSyncedFrom records the snapshot date in the memory folder, atomically.
// A symlink (or anything but a regular file) in the record's place is
// refused with ErrUnsafePath, as SafeWrite refuses one.
func writeSyncedFrom(mem *os.Root, t time.Time) error {
	if fi, err := mem.Lstat(SnapshotSyncedName); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("record snapshot: %w: %s is not a regular file", memcore.ErrUnsafePath, SnapshotSyncedName)
	}
	data, _ := json.Marshal(map[string]string{"syncedFrom": t.UTC().Format(time.RFC3339Nano)})
	opts := memcore.WriteOptions{Perm: memcore.DefaultFilePerm, DirPerm: memcore.DefaultDirPerm}
	if err := memcore.WriteInRoot(mem, SnapshotSyncedName, append(data, '\n'), opts); err != nil {
		return fmt.Errorf("record snapshot: %w", err)
	}
	return nil
}

// readRegular reads name inside root when it is a regular file.
func readRegular(root *os.Root, name string) ([]byte, error) {
	if err := memcore.RequireRegular(root, name); err != nil {
		return nil, err
	}
	return root.ReadFile(name)
}

// hasMarkdown reports whether a folder holds any *.md file (recursively).
func hasMarkdown(mem *os.Root) (bool, error) {
	found := false
	err := walkMarkdown(mem, func(string) error { found = true; return fs.SkipAll })
	return found, err
}

// removeMarkdown removes every *.md file below the folder.
func removeMarkdown(mem *os.Root) error {
	return walkMarkdown(mem, func(p string) error { return mem.Remove(filepath.FromSlash(p)) })
}

// walkMarkdown calls fn with the slash path of every regular *.md file below
// the folder; symlinks are neither reported nor followed.
func walkMarkdown(mem *os.Root, fn func(p string) error) error {
	return fs.WalkDir(mem.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() || !strings.EqualFold(filepath.Ext(p), ".md") {
			return err
		}
		return fn(p)
	})
}
