package session

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/teammem/teammem/memcore"
)

// AgentMemoryScope is where an agent type keeps its memory (§12).
type AgentMemoryScope string

// The agent memory scopes.
const (
	// AgentScopeUser is <memoryBase>/agent-memory/<type>/, shared by all
	// projects of the user.
	AgentScopeUser AgentMemoryScope = "user"
	// AgentScopeProject is <cwd>/.claude/agent-memory/<type>/, checked in.
	AgentScopeProject AgentMemoryScope = "project"
	// AgentScopeLocal is <cwd>/.claude/agent-memory-local/<type>/, this
	// machine only.
	AgentScopeLocal AgentMemoryScope = "local"
)

// Folder names of agent memory below <cwd>/.claude or <memoryBase>.
const (
	agentMemoryDirName   = "agent-memory"
	agentLocalDirName    = "agent-memory-local"
	agentSnapshotDirName = "agent-memory-snapshots"
)

// ErrInvalidAgentType is returned for an agent type that cannot name a
// folder, and ErrInvalidAgentScope for an unknown scope.
var (
	ErrInvalidAgentType  = errors.New("invalid agent type")
	ErrInvalidAgentScope = errors.New("invalid agent memory scope")
)

// AgentTypeDirName returns the folder name of an agent type: the ':' of
// plugin agent names ("plugin:reviewer") becomes '-'. A type that is empty,
// "." or "..", or holds a path separator or NUL is refused, so that an agent
// definition cannot point its memory outside the scope folder.
func AgentTypeDirName(agentType string) (string, error) {
	name := strings.ReplaceAll(agentType, ":", "-")
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return "", fmt.Errorf("%w: %q", ErrInvalidAgentType, agentType)
	}
	return name, nil
}

// AgentMemoryDir returns an agent type's memory folder in a scope, with a
// trailing separator.
func AgentMemoryDir(env memcore.Env, agentType string, scope AgentMemoryScope) (string, error) {
	f, err := agentMemoryFolder(env, agentType, scope)
	if err != nil {
		return "", err
	}
	return f.path(), nil
}

// AgentSnapshotDir returns <cwd>/.claude/agent-memory-snapshots/<type>/, where
// a project may ship initial memory for an agent type.
func AgentSnapshotDir(env memcore.Env, agentType string) (string, error) {
	f, err := agentSnapshotFolder(env, agentType)
	if err != nil {
		return "", err
	}
	return f.path(), nil
}

// agentMemoryFolder names an agent type's memory folder in a scope: below
// <memoryBase> for the user scope, below <cwd>/.claude for the others.
func agentMemoryFolder(env memcore.Env, agentType string, scope AgentMemoryScope) (agentFolder, error) {
	name, err := AgentTypeDirName(agentType)
	if err != nil {
		return agentFolder{}, err
	}
	switch scope {
	case AgentScopeUser:
		return agentFolder{base: memcore.MemoryBase(env), names: []string{agentMemoryDirName, name}}, nil
	case AgentScopeProject:
		return agentFolder{base: projectConfigDir(env), names: []string{agentMemoryDirName, name}}, nil
	case AgentScopeLocal:
		return agentFolder{base: projectConfigDir(env), names: []string{agentLocalDirName, name}}, nil
	}
	return agentFolder{}, fmt.Errorf("%w: %q", ErrInvalidAgentScope, scope)
}

// agentSnapshotFolder names the project's snapshot folder of an agent type.
func agentSnapshotFolder(env memcore.Env, agentType string) (agentFolder, error) {
	name, err := AgentTypeDirName(agentType)
	if err != nil {
		return agentFolder{}, err
	}
	return agentFolder{base: projectConfigDir(env), names: []string{agentSnapshotDirName, name}}, nil
}

// projectConfigDir returns <cwd>/.claude.
func projectConfigDir(env memcore.Env) string {
	return filepath.Join(env.Cwd, memcore.ConfigDirName)
}
