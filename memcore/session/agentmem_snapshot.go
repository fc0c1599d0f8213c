package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/teammem/teammem/memcore"
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
type agentDirs struct{ memory, snapshot agentFolder }

// resolveAgentDirs returns the folders of an agent type in a scope.
func resolveAgentDirs(env memcore.Env, agentType string, scope AgentMemoryScope) (agentDirs, error) {
	mem, err := agentMemoryFolder(env, agentType, scope)
	if err != nil {
		return agentDirs{}, err
	}
	snap, err := agentSnapshotFolder(env, agentType)
	return agentDirs{memory: mem, snapshot: snap}, err
}

// CheckAgentSnapshot compares an agent type's memory in a scope with the
// project's snapshot for that type. Errors wrap ErrUnsafePath when a folder
// below .claude (or below the memory base) is a symlink.
func CheckAgentSnapshot(env memcore.Env, agentType string, scope AgentMemoryScope) (SnapshotStatus, error) {
	d, err := resolveAgentDirs(env, agentType, scope)
	if err != nil {
		return SnapshotStatus{}, err
	}
	updated, ok, err := d.snapshotDate()
	if err != nil || !ok {
		return SnapshotStatus{Action: SnapshotNone}, err
	}
	st := SnapshotStatus{Action: SnapshotInitialize, UpdatedAt: updated}
	mem, err := d.memory.open(false)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return SnapshotStatus{}, fmt.Errorf("check agent snapshot: %w", err)
	}
	defer mem.Close()
	hasMemory, err := hasMarkdown(mem)
	if err != nil || !hasMemory {
		return st, err
	}
	st.SyncedFrom = readSyncedFrom(mem)
	st.Action = SnapshotNone
	if st.SyncedFrom.IsZero() || updated.After(st.SyncedFrom) {
		st.Action = SnapshotUpdateAvailable
	}
	return st, nil
}

// InitializeFromSnapshot copies the snapshot's files into the (empty)
// memory folder and records the snapshot's date. It returns the keys copied.
// Errors wrap ErrUnsafePath as CheckAgentSnapshot's do.
func InitializeFromSnapshot(env memcore.Env, agentType string, scope AgentMemoryScope) ([]string, error) {
	return withSnapshot(env, agentType, scope, func(mem, snap *os.Root, updated time.Time) ([]string, error) {
		return copySnapshot(mem, snap, updated)
	})
}

// ReplaceFromSnapshot removes the memory folder's Markdown files, copies the
// snapshot in and records its date. It returns the keys copied. Errors wrap
// ErrUnsafePath as CheckAgentSnapshot's do.
func ReplaceFromSnapshot(env memcore.Env, agentType string, scope AgentMemoryScope) ([]string, error) {
	return withSnapshot(env, agentType, scope, func(mem, snap *os.Root, updated time.Time) ([]string, error) {
		if err := removeMarkdown(mem); err != nil {
			return nil, fmt.Errorf("replace agent memory: %w", err)
		}
		return copySnapshot(mem, snap, updated)
	})
}

// MarkSnapshotSynced records the current snapshot's date without copying
// anything (the user declined the update). Errors wrap ErrUnsafePath as
// CheckAgentSnapshot's do.
func MarkSnapshotSynced(env memcore.Env, agentType string, scope AgentMemoryScope) error {
	_, err := withSnapshot(env, agentType, scope, func(mem, _ *os.Root, updated time.Time) ([]string, error) {
		return nil, writeSyncedFrom(mem, updated)
	})
	return err
}

// withSnapshot opens the snapshot folder and the memory folder (creating it)
// of an agent type and calls fn with both and the snapshot's date. It fails
// when there is no snapshot.
func withSnapshot(env memcore.Env, agentType string, scope AgentMemoryScope, fn func(mem, snap *os.Root, updated time.Time) ([]string, error)) ([]string, error) {
	d, err := resolveAgentDirs(env, agentType, scope)
	if err != nil {
		return nil, err
	}
	snap, err := d.snapshot.open(false)
	if err != nil {
		return nil, fmt.Errorf("open agent snapshot for %q: %w", agentType, err)
	}
	defer snap.Close()
	updated, ok, err := snapshotDate(snap)
	if err != nil || !ok {
		return nil, errors.Join(err, fmt.Errorf("open agent snapshot: no snapshot for %q", agentType))
	}
	mem, err := d.memory.open(true)
	if err != nil {
		return nil, err
	}
	defer mem.Close()
	return fn(mem, snap, updated)
}

// snapshotDate dates the snapshot folder; ok is false when there is none.
func (d agentDirs) snapshotDate() (t time.Time, ok bool, err error) {
	snap, err := d.snapshot.open(false)
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("check agent snapshot: %w", err)
	}
	defer snap.Close()
	return snapshotDate(snap)
}
