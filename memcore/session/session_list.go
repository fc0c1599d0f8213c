package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// NotesSummary is one session's notes as a listing shows them.
type NotesSummary struct {
	// SessionID is the session's folder name, Path its notes file.
	SessionID string
	Path      string
	// Modified is the notes file's modification time.
	Modified time.Time
	// Title and CurrentState are the text of those sections, their
	// description lines left out; "" when the writer filled in nothing.
	Title        string
	CurrentState string
	// Size is AnalyzeSections of the notes: their tokens against the §10
	// budgets, the sections over theirs.
	Size SectionReport
	// Empty says the notes still equal the template.
	Empty bool
}

// ListSessionNotes lists the session notes of a project folder
// (<projectDir>/<session>/session-memory/summary.md), newest first, with
// template as the template Empty compares against. A missing project
// folder has none. Only regular files are read, through an os.Root on the
// session folder: a notes file that is a symlink, or that a symlink leads
// out of the session folder to, is left out.
func ListSessionNotes(projectDir, template string) ([]NotesSummary, error) {
	entries, err := os.ReadDir(projectDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list session notes: %w", err)
	}
	var out []NotesSummary
	for _, e := range entries {
		if !e.IsDir() || checkSessionID(e.Name()) != nil {
			continue
		}
		if n, ok := readNotesSummary(projectDir, e.Name(), template); ok {
			out = append(out, n)
		}
	}
	slices.SortStableFunc(out, func(a, b NotesSummary) int {
		if c := b.Modified.Compare(a.Modified); c != 0 {
			return c
		}
		return strings.Compare(a.SessionID, b.SessionID)
	})
	return out, nil
}

// readNotesSummary reads one session's notes; ok is false when it has no
// notes file that reads as a regular file inside its session folder.
func readNotesSummary(projectDir, id, template string) (NotesSummary, bool) {
	root, err := os.OpenRoot(filepath.Join(projectDir, id))
	if err != nil {
		return NotesSummary{}, false
	}
	defer root.Close()
	name := filepath.Join("session-memory", "summary.md")
	info, err := root.Lstat(name)
	if err != nil || !info.Mode().IsRegular() {
		return NotesSummary{}, false
	}
	data, err := root.ReadFile(name)
	if err != nil {
		return NotesSummary{}, false
	}
	content := string(data)
	return NotesSummary{
		SessionID: id, Path: filepath.Join(projectDir, id, name), Modified: info.ModTime(),
		Title: SectionText(content, "Session Title"), CurrentState: SectionText(content, "Current State"),
		Size: AnalyzeSections(content), Empty: IsEmpty(content, template),
	}, true
}

// SectionText returns the text of the section headed "# title" in session
// notes, without its italic description line (the template's "_…_" line
// right below the header) and surrounding white space; "" when there is no
// such section.
func SectionText(content, title string) string {
	for _, s := range splitSections(content) {
		if strings.TrimSpace(strings.TrimPrefix(s.header, "# ")) != title {
			continue
		}
		lines := s.lines
		if len(lines) > 0 && isDescriptionLine(lines[0]) {
			lines = lines[1:]
		}
		return strings.TrimSpace(strings.Join(lines, "\n"))
	}
	return ""
}

// isDescriptionLine reports whether line is a section's italic
// description, "_…_".
func isDescriptionLine(line string) bool {
	t := strings.TrimSpace(line)
	return len(t) >= 2 && strings.HasPrefix(t, "_") && strings.HasSuffix(t, "_")
}
