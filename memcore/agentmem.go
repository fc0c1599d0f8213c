package memcore

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
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
func AgentMemoryDir(env Env, agentType string, scope AgentMemoryScope) (string, error) {
	name, err := AgentTypeDirName(agentType)
	if err != nil {
		return "", err
	}
	var dir string
	switch scope {
	case AgentScopeUser:
		dir = filepath.Join(MemoryBase(env), agentMemoryDirName, name)
	case AgentScopeProject:
		dir = filepath.Join(env.Cwd, ConfigDirName, agentMemoryDirName, name)
	case AgentScopeLocal:
		dir = filepath.Join(env.Cwd, ConfigDirName, agentLocalDirName, name)
	default:
		return "", fmt.Errorf("%w: %q", ErrInvalidAgentScope, scope)
	}
	return dir + string(filepath.Separator), nil
}

// AgentSnapshotDir returns <cwd>/.claude/agent-memory-snapshots/<type>/, where
// a project may ship initial memory for an agent type.
func AgentSnapshotDir(env Env, agentType string) (string, error) {
	name, err := AgentTypeDirName(agentType)
	if err != nil {
		return "", err
	}
	return filepath.Join(env.Cwd, ConfigDirName, agentSnapshotDirName, name) + string(filepath.Separator), nil
}
