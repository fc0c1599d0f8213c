package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultSessionTemplate is the built-in session notes template (§10): ten
// sections, each a "# Title" line and an italic description line. Writers
// update the text below the descriptions and keep both lines unchanged.
const DefaultSessionTemplate = `# Session Title
_A short and distinctive 5-10 word descriptive title for the session._

# Current State
_What is actively being worked on right now? Pending tasks not yet completed._

# Task specification
_What did the user ask to build? Any design decisions or other explanatory context_

# Files and Functions
_What are the important files? In short, what do they contain and why are they relevant?_

# Workflow
_What bash commands are usually run and in what order?_

# Errors & Corrections
_Errors encountered and how they were fixed. What did the user correct?_

# Codebase and System Documentation
_What are the important system components? How do they work/fit together?_

# Learnings
_What has worked well? What has not? What to avoid?_

# Key results
_If the user asked a specific output, repeat the exact result here_

# Worklog
_Step by step, what was attempted, done? Very terse summary for each step_
`

// ErrInvalidSessionID is returned for a session id that is not one plain
// path segment.
var ErrInvalidSessionID = errors.New("invalid session id")

// SessionNotes is a session's notes file.
type SessionNotes struct {
	// Path is <projectDir>/<sessionID>/session-memory/summary.md.
	Path string
	// Content is the file's text.
	Content string
	// Created is true when this call created the file from the template.
	Created bool
}

// SessionNotesPath returns <projectDir>/<sessionID>/session-memory/summary.md,
// where projectDir is the working directory's project folder (ProjectDir).
func SessionNotesPath(projectDir, sessionID string) (string, error) {
	if err := checkSessionID(sessionID); err != nil {
		return "", err
	}
	return filepath.Join(projectDir, sessionID, "session-memory", "summary.md"), nil
}

// checkSessionID rejects ids that would leave their folder.
func checkSessionID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, "/\\:\x00") {
		return fmt.Errorf("%w: %q", ErrInvalidSessionID, id)
	}
	return nil
}

// SessionTemplate returns the user's template,
// <memoryBase>/session-memory/config/template.md, when it exists, else
// DefaultSessionTemplate.
func SessionTemplate(memoryBase string) (string, error) {
	data, err := os.ReadFile(filepath.Join(memoryBase, "session-memory", "config", "template.md"))
	switch {
	case err == nil:
		return string(data), nil
	case errors.Is(err, fs.ErrNotExist):
		return DefaultSessionTemplate, nil
	}
	return "", fmt.Errorf("read session template: %w", err)
}

// EnsureSessionNotes returns a session's notes, creating the file (mode
// 0600, folders 0700) from SessionTemplate(memoryBase) on first use. An
// existing file is never overwritten, even by a concurrent creator.
func EnsureSessionNotes(projectDir, sessionID, memoryBase string) (SessionNotes, error) {
	path, err := SessionNotesPath(projectDir, sessionID)
	if err != nil {
		return SessionNotes{}, err
	}
	notes := SessionNotes{Path: path}
	if data, err := os.ReadFile(path); err == nil {
		notes.Content = string(data)
		return notes, nil
	}
	tmpl, err := SessionTemplate(memoryBase)
	if err != nil {
		return notes, err
	}
	created, err := createExclusiveFile(path, tmpl)
	if err != nil {
		return notes, fmt.Errorf("create session notes: %w", err)
	}
	if created {
		notes.Content, notes.Created = tmpl, true
		return notes, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return notes, fmt.Errorf("read session notes: %w", err)
	}
	notes.Content = string(data)
	return notes, nil
}

// createExclusiveFile writes content to a new file at path; created is false
// when the file already exists.
func createExclusiveFile(path, content string) (created bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = f.WriteString(content)
	return true, errors.Join(err, f.Close())
}

// IsEmpty reports whether session notes still equal their template (leading
// and trailing white space ignored): nothing has been written yet.
func IsEmpty(content, template string) bool {
	return strings.TrimSpace(content) == strings.TrimSpace(template)
}
