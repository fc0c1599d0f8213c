// Package memcore is the local memory core of AI coding assistants: it finds and
// loads layered instruction files, resolves @includes, applies conditional rules,
// locates the private and team memory directories, validates every path written
// into them, and keeps the MEMORY.md index inside its budget. The small
// file-based protocols around them (session notes, the consolidation lock, agent
// memory scopes, daily logs) live in memcore/session. See spec/memcore.md.
//
// memcore never logs and never reads global state implicitly: the roots, the
// environment and the clock are injected through Env.
package memcore

import (
	"path/filepath"
	"strings"
	"time"
)

// Env is everything memcore reads from the outside world. Nothing is read
// implicitly: commands build an Env from the real process environment, tests
// build one over a temporary tree.
type Env struct {
	// Home is the user's home directory (absolute).
	Home string
	// ManagedDir holds managed policy files (CLAUDE.md, managed-settings.json,
	// .claude/rules). Default "/etc/claude-code" on Unix.
	ManagedDir string
	// Cwd is the working directory (absolute).
	Cwd string
	// Getenv looks up an environment variable; nil means an empty environment.
	Getenv func(string) string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// FlagSettings are settings given on the command line (for example
	// autoMemoryDirectory); they rank between policy and local settings.
	FlagSettings map[string]any
	// CaseInsensitive makes path identity comparisons case-folded, as on the
	// default file systems of macOS and Windows.
	CaseInsensitive bool
	// PID is the current process id (the consolidation lock's holder id); 0
	// means unknown.
	PID int
	// ProcessAlive reports whether a process id is live; nil means a
	// platform default.
	ProcessAlive func(pid int) bool
}

// ConfigDirName is the per-project and per-user configuration folder name.
const ConfigDirName = ".claude"

// getenv returns the value of key, or "" when the Env has no environment.
func (e Env) getenv(key string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(key)
}

// CurrentTime returns the injected clock's time, or the real time.
func (e Env) CurrentTime() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

// managedDir returns the managed policy directory, defaulting per platform.
func (e Env) managedDir() string {
	if e.ManagedDir != "" {
		return e.ManagedDir
	}
	return defaultManagedDir
}

// userConfigDir is <home>/.claude.
func (e Env) userConfigDir() string { return filepath.Join(e.Home, ConfigDirName) }

// truthy reports whether an environment value means "on" (1, true, yes,
// on; any case, surrounding whitespace ignored), as Claude Code reads it.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// falsy reports whether an environment value explicitly means "off" (0,
// false, no, off; any case, surrounding whitespace ignored).
func falsy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "0", "false", "no", "off":
		return true
	}
	return false
}
