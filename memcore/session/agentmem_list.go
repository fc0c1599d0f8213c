package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/teammem/teammem/memcore"
)

// AgentMemory is one agent type's memory in one scope, as a listing shows
// it.
type AgentMemory struct {
	// Type is the type's folder name (AgentTypeDirName).
	Type string
	// Scope is where the memory is; "" for a type that has a project
	// snapshot and no memory yet in any scope.
	Scope AgentMemoryScope
	// Dir is the memory folder, with a trailing separator ("" without a
	// scope).
	Dir string
	// Files and Bytes count its Markdown files.
	Files int
	Bytes int64
	// Snapshot compares it with the project's snapshot of its type.
	Snapshot SnapshotStatus
	// Err says why the folder could not be read (a symlink in the project's
	// .claude, an unreadable folder); the counts are zero then.
	Err error
}

// agentScopes are the scopes in the order listings show them.
var agentScopes = []AgentMemoryScope{AgentScopeUser, AgentScopeProject, AgentScopeLocal}

// ListAgentMemories lists every agent memory env reaches: each type folder
// in the user scope (<memoryBase>/agent-memory/) and the project and local
// scopes of env.Cwd, by type then scope, and each type that has only a
// project snapshot. Folder names that are not agent type names are left
// out; symlinked type folders are listed with their Err.
func ListAgentMemories(env memcore.Env) []AgentMemory {
	var out []AgentMemory
	withMemory := map[string]bool{}
	for _, scope := range agentScopes {
		for _, t := range agentTypesIn(agentScopeParent(env, scope)) {
			out = append(out, readAgentMemory(env, t, scope))
			withMemory[t] = true
		}
	}
	for _, t := range agentTypesIn(filepath.Join(projectConfigDir(env), agentSnapshotDirName)) {
		if withMemory[t] {
			continue
		}
		snap, err := CheckAgentSnapshot(env, t, AgentScopeProject)
		if err == nil && snap.Action != SnapshotNone {
			out = append(out, AgentMemory{Type: t, Snapshot: snap})
		}
	}
	slices.SortStableFunc(out, func(a, b AgentMemory) int {
		if c := strings.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return slices.Index(agentScopes, a.Scope) - slices.Index(agentScopes, b.Scope)
	})
	return out
}

// agentScopeParent returns the folder that holds a scope's type folders.
func agentScopeParent(env memcore.Env, scope AgentMemoryScope) string {
	switch scope {
	case AgentScopeUser:
		return filepath.Join(memcore.MemoryBase(env), agentMemoryDirName)
	case AgentScopeLocal:
		return filepath.Join(projectConfigDir(env), agentLocalDirName)
	}
	return filepath.Join(projectConfigDir(env), agentMemoryDirName)
}

// agentTypesIn lists the folder names in dir that name agent types, in
// order; symlinks to folders included (readAgentMemory refuses them).
func agentTypesIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if (e.IsDir() || e.Type()&fs.ModeSymlink != 0) && !strings.HasPrefix(name, ".") {
			if dn, err := AgentTypeDirName(name); err == nil && dn == name {
				out = append(out, name)
			}
		}
	}
	return out
}

// readAgentMemory counts one memory folder's files and checks its snapshot.
func readAgentMemory(env memcore.Env, agentType string, scope AgentMemoryScope) AgentMemory {
	m := AgentMemory{Type: agentType, Scope: scope, Snapshot: SnapshotStatus{Action: SnapshotNone}}
	f, err := agentMemoryFolder(env, agentType, scope)
	if err != nil {
		m.Err = err
		return m
	}
	m.Dir = f.path()
	root, err := f.open(false)
	if err != nil {
		m.Err = err
		return m
	}
	defer root.Close()
	m.Err = walkMarkdown(root, func(p string) error {
		info, err := root.Lstat(filepath.FromSlash(p))
		if err != nil {
			return err
		}
		m.Files, m.Bytes = m.Files+1, m.Bytes+info.Size()
		return nil
	})
	if snap, err := CheckAgentSnapshot(env, agentType, scope); err == nil {
		m.Snapshot = snap
	} else if !errors.Is(err, fs.ErrNotExist) {
		m.Err = errors.Join(m.Err, err)
	}
	return m
}
