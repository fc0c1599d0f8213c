package memcore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Snapshot bookkeeping files. snapshot.json ({"updatedAt": RFC 3339}) is
// optional in the snapshot folder; without it the newest file modification
// time dates the snapshot. The memory folder records the snapshot it was
// filled from in .snapshot-synced.json ({"syncedFrom": RFC 3339}).
const (
	SnapshotMetaName   = "snapshot.json"
	SnapshotSyncedName = ".snapshot-synced.json"
)

// SnapshotAction is what CheckAgentSnapshot advises.
type SnapshotAction string

// The snapshot actions.
const (
	// SnapshotNone: no snapshot, or the memory is up to date with it.
	SnapshotNone SnapshotAction = "none"
	// SnapshotInitialize: the memory is empty; call InitializeFromSnapshot.
	SnapshotInitialize SnapshotAction = "initialize"
	// SnapshotUpdateAvailable: the snapshot is newer than the one the memory
	// came from (or the memory has no record); offer ReplaceFromSnapshot or
	// MarkSnapshotSynced.
	SnapshotUpdateAvailable SnapshotAction = "update-available"
)

// SnapshotStatus is CheckAgentSnapshot's answer.
type SnapshotStatus struct {
	Action SnapshotAction
	// UpdatedAt dates the snapshot (zero when there is none).
	UpdatedAt time.Time
	// SyncedFrom is the snapshot date the memory records (zero when none).
	SyncedFrom time.Time
}

// agentDirs are the memory and snapshot folders of an agent type.
type agentDirs struct{ memory, snapshot string }

// resolveAgentDirs returns the folders of an agent type in a scope.
func resolveAgentDirs(env Env, agentType string, scope AgentMemoryScope) (agentDirs, error) {
	mem, err := AgentMemoryDir(env, agentType, scope)
	if err != nil {
		return agentDirs{}, err
	}
	snap, err := AgentSnapshotDir(env, agentType)
	return agentDirs{memory: mem, snapshot: snap}, err
}

// CheckAgentSnapshot compares an agent type's memory in a scope with the
// project's snapshot for that type.
func CheckAgentSnapshot(env Env, agentType string, scope AgentMemoryScope) (SnapshotStatus, error) {
	d, err := resolveAgentDirs(env, agentType, scope)
	if err != nil {
		return SnapshotStatus{}, err
	}
	updated, ok, err := snapshotDate(d.snapshot)
	if err != nil || !ok {
		return SnapshotStatus{Action: SnapshotNone}, err
	}
	st := SnapshotStatus{Action: SnapshotInitialize, UpdatedAt: updated}
	hasMemory, err := hasMarkdown(d.memory)
	if err != nil || !hasMemory {
		return st, err
	}
	st.SyncedFrom = readSyncedFrom(d.memory)
	st.Action = SnapshotNone
	if st.SyncedFrom.IsZero() || updated.After(st.SyncedFrom) {
		st.Action = SnapshotUpdateAvailable
	}
	return st, nil
}

// InitializeFromSnapshot copies the snapshot's files into the (empty)
// memory folder and records the snapshot's date. It returns the keys copied.
func InitializeFromSnapshot(env Env, agentType string, scope AgentMemoryScope) ([]string, error) {
	d, err := resolveAgentDirs(env, agentType, scope)
	if err != nil {
		return nil, err
	}
	return d.copySnapshot()
}

// ReplaceFromSnapshot removes the memory folder's Markdown files, copies the
// snapshot in and records its date. It returns the keys copied.
func ReplaceFromSnapshot(env Env, agentType string, scope AgentMemoryScope) ([]string, error) {
	d, err := resolveAgentDirs(env, agentType, scope)
	if err != nil {
		return nil, err
	}
	if err := removeMarkdown(d.memory); err != nil {
		return nil, fmt.Errorf("replace agent memory: %w", err)
	}
	return d.copySnapshot()
}

// MarkSnapshotSynced records the current snapshot's date without copying
// anything (the user declined the update).
func MarkSnapshotSynced(env Env, agentType string, scope AgentMemoryScope) error {
	d, err := resolveAgentDirs(env, agentType, scope)
	if err != nil {
		return err
	}
	updated, ok, err := snapshotDate(d.snapshot)
	if err != nil || !ok {
		return errors.Join(err, fmt.Errorf("mark snapshot synced: no snapshot for %q", agentType))
	}
	return writeSyncedFrom(d.memory, updated)
}

// copySnapshot copies every snapshot file whose relative path is a valid
// key (so Markdown and text files, no dot-files, no symlinks) through
// SafeWrite, then records the snapshot date.
func (d agentDirs) copySnapshot() ([]string, error) {
	updated, ok, err := snapshotDate(d.snapshot)
	if err != nil || !ok {
		return nil, errors.Join(err, errors.New("copy agent snapshot: no snapshot"))
	}
	keys, err := snapshotKeys(d.snapshot)
	if err != nil {
		return nil, fmt.Errorf("copy agent snapshot: %w", err)
	}
	if err := os.MkdirAll(d.memory, 0o755); err != nil {
		return nil, fmt.Errorf("copy agent snapshot: %w", err)
	}
	for _, key := range keys {
		data, err := os.ReadFile(filepath.Join(d.snapshot, filepath.FromSlash(key)))
		if err != nil {
			return nil, fmt.Errorf("copy agent snapshot: %w", err)
		}
		if err := SafeWrite(d.memory, key, data); err != nil {
			return nil, fmt.Errorf("copy agent snapshot: %w", err)
		}
	}
	return keys, writeSyncedFrom(d.memory, updated)
}

// snapshotKeys lists the snapshot's copyable files as keys, in lexical order.
func snapshotKeys(dir string) ([]string, error) {
	var keys []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		key := filepath.ToSlash(rel)
		if err == nil && key != SnapshotMetaName && ValidateKey(key) == nil {
			keys = append(keys, key)
		}
		return nil
	})
	return keys, err
}

// snapshotDate dates a snapshot folder: snapshot.json's updatedAt, else the
// newest modification time of its files. ok is false when there is no
// snapshot (no folder or no copyable file).
func snapshotDate(dir string) (t time.Time, ok bool, err error) {
	keys, err := snapshotKeys(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, false, nil
	}
	if err != nil || len(keys) == 0 {
		return time.Time{}, false, err
	}
	var meta struct {
		UpdatedAt time.Time `json:"updatedAt"`
	}
	if data, err := os.ReadFile(filepath.Join(dir, SnapshotMetaName)); err == nil && json.Unmarshal(data, &meta) == nil && !meta.UpdatedAt.IsZero() {
		return meta.UpdatedAt, true, nil
	}
	for _, k := range keys {
		if info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(k))); err == nil && info.ModTime().After(t) {
			t = info.ModTime()
		}
	}
	return t, true, nil
}

// readSyncedFrom returns the recorded snapshot date, zero when none.
func readSyncedFrom(memDir string) time.Time {
	var rec struct {
		SyncedFrom time.Time `json:"syncedFrom"`
	}
	data, err := os.ReadFile(filepath.Join(memDir, SnapshotSyncedName))
	if err != nil || json.Unmarshal(data, &rec) != nil {
		return time.Time{}
	}
	return rec.SyncedFrom
}

// writeSyncedFrom records the snapshot date in the memory folder.
func writeSyncedFrom(memDir string, t time.Time) error {
	data, _ := json.Marshal(map[string]string{"syncedFrom": t.UTC().Format(time.RFC3339Nano)})
	if err := os.MkdirAll(memDir, 0o755); err != nil {
		return fmt.Errorf("record snapshot: %w", err)
	}
	if err := os.WriteFile(filepath.Join(memDir, SnapshotSyncedName), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("record snapshot: %w", err)
	}
	return nil
}

// hasMarkdown reports whether a folder holds any *.md file (recursively);
// a missing folder holds none.
func hasMarkdown(dir string) (bool, error) {
	found := false
	err := walkMarkdown(dir, func(string) error { found = true; return fs.SkipAll })
	return found, err
}

// removeMarkdown removes every *.md file below dir.
func removeMarkdown(dir string) error {
	return walkMarkdown(dir, os.Remove)
}

// walkMarkdown calls fn for every regular *.md file below dir; a missing dir
// is empty.
func walkMarkdown(dir string, fn func(path string) error) error {
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() || !strings.EqualFold(filepath.Ext(p), ".md") {
			return err
		}
		return fn(p)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
