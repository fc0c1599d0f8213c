package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/teammem/teammem/memcore"
	memsession "github.com/teammem/teammem/memcore/session"
)

// sessionJSON is one session's notes in `memory sessions --json`.
type sessionJSON struct {
	Session      string                   `json:"session"`
	Path         string                   `json:"path"`
	Modified     time.Time                `json:"modified"`
	Title        string                   `json:"title"`
	CurrentState string                   `json:"currentState"`
	Tokens       int                      `json:"tokens"`
	OverBudget   bool                     `json:"overBudget"`
	Empty        bool                     `json:"empty"`
	Sections     []memsession.SectionSize `json:"sections"`
	Oversized    []memsession.SectionSize `json:"oversized"`
}

// memorySessions lists this project's session notes (§10): title, current
// state, size against the budgets and the sections over theirs.
func memorySessions(_ context.Context, r *memoryRun, _ []string) error {
	tmpl, err := memsession.SessionTemplate(r.layout.MemoryBase)
	if err != nil {
		return fmt.Errorf("memory sessions: %w", err)
	}
	dir := memcore.ProjectDir(r.layout.MemoryBase, r.layout.ProjectRoot)
	notes, err := memsession.ListSessionNotes(dir, tmpl)
	if err != nil {
		return fmt.Errorf("memory sessions: %w", err)
	}
	out := make([]sessionJSON, 0, len(notes))
	for _, n := range notes {
		out = append(out, sessionJSON{Session: n.SessionID, Path: n.Path, Modified: n.Modified.UTC(), Title: n.Title,
			CurrentState: n.CurrentState, Tokens: n.Size.TotalTokens, OverBudget: n.Size.OverBudget, Empty: n.Empty,
			Sections: nonNil(n.Size.Sections), Oversized: nonNil(n.Size.Oversized)})
	}
	if r.flags.json {
		return r.emitJSON(map[string]any{"projectDir": dir, "maxTokens": memsession.MaxSessionTotalTokens,
			"maxSectionTokens": memsession.MaxSessionSectionTokens, "sessions": out})
	}
	w := r.e.Stdout
	if len(out) == 0 {
		fmt.Fprintf(w, "no session notes in %s\n", dir)
	}
	for _, n := range out {
		title := "(no title yet)"
		if n.Title != "" {
			title = fmt.Sprintf("%q", firstLine(n.Title))
		}
		over := ""
		if n.OverBudget {
			over = ", over budget"
		}
		fmt.Fprintf(w, "%s  %s  %d/%d tokens%s  %s\n", n.Session, n.Modified.Format(time.RFC3339), n.Tokens, memsession.MaxSessionTotalTokens, over, title)
		if n.CurrentState != "" {
			fmt.Fprintf(w, "  current state: %q\n", firstLine(n.CurrentState))
		}
		for _, s := range n.Oversized {
			fmt.Fprintf(w, "  over %d tokens: %q has %d\n", memsession.MaxSessionSectionTokens, strings.TrimPrefix(s.Header, "# "), s.Tokens)
		}
	}
	return nil
}

// firstLine returns s up to its first line break, marked when cut.
func firstLine(s string) string {
	if line, _, cut := strings.Cut(s, "\n"); cut {
		return line + " …"
	}
	return s
}

// agentJSON is one agent memory in `memory agents --json`.
type agentJSON struct {
	Type         string     `json:"type"`
	Scope        string     `json:"scope"`
	Dir          string     `json:"dir"`
	Files        int        `json:"files"`
	Bytes        int64      `json:"bytes"`
	Snapshot     string     `json:"snapshot"`
	SnapshotDate *time.Time `json:"snapshotDate,omitempty"`
	SyncedFrom   *time.Time `json:"syncedFrom,omitempty"`
	Error        string     `json:"error,omitempty"`
}

// memoryAgents lists the agent memories of every scope (§12): type,
// scope, size and how each stands against the project's snapshot.
func memoryAgents(_ context.Context, r *memoryRun, _ []string) error {
	env := r.env
	env.Cwd = r.layout.ProjectRoot
	out := []agentJSON{}
	for _, m := range memsession.ListAgentMemories(env) {
		a := agentJSON{Type: m.Type, Scope: string(m.Scope), Dir: m.Dir, Files: m.Files, Bytes: m.Bytes, Snapshot: string(m.Snapshot.Action),
			SnapshotDate: utcOrNil(m.Snapshot.UpdatedAt), SyncedFrom: utcOrNil(m.Snapshot.SyncedFrom)}
		if m.Err != nil {
			a.Error = m.Err.Error()
		}
		out = append(out, a)
	}
	if r.flags.json {
		return r.emitJSON(map[string]any{"agents": out})
	}
	w := r.e.Stdout
	if len(out) == 0 {
		fmt.Fprintln(w, "no agent memory")
	}
	for _, a := range out {
		scope := a.Scope
		if scope == "" {
			scope = "(none yet)"
		}
		snap := a.Snapshot
		if a.SnapshotDate != nil {
			snap += " (snapshot of " + a.SnapshotDate.Format(time.RFC3339) + ")"
		}
		fmt.Fprintf(w, "%q  %s  %s, %d bytes  snapshot: %s", a.Type, scope, plural(a.Files, "file", "files"), a.Bytes, snap)
		if a.Dir != "" {
			fmt.Fprintf(w, "  %s", a.Dir)
		}
		fmt.Fprintln(w)
		if a.Error != "" {
			fmt.Fprintf(w, "  cannot read it: %s\n", a.Error)
		}
	}
	return nil
}

// utcOrNil returns t in UTC, nil for the zero time.
func utcOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// logJSON is one day's log in `memory logs --json`.
type logJSON struct {
	Date    string `json:"date"`
	Path    string `json:"path"`
	Content string `json:"content"`
}

// memoryLogs prints the daily logs of the auto memory folder (§13), from
// --since on.
func memoryLogs(_ context.Context, r *memoryRun, _ []string) error {
	var since time.Time
	if r.flags.since != "" {
		t, err := time.Parse(time.DateOnly, r.flags.since)
		if err != nil {
			return errUsage("memory logs: --since %q: want a date such as 2026-05-01", r.flags.since)
		}
		since = t
	}
	logs, err := memsession.ListDailyLogs(r.layout.AutoMemDir, since)
	if err != nil {
		return fmt.Errorf("memory logs: %w", err)
	}
	out := make([]logJSON, 0, len(logs))
	for _, l := range logs {
		out = append(out, logJSON{Date: l.Date, Path: l.Path, Content: l.Content})
	}
	if r.flags.json {
		return r.emitJSON(map[string]any{"logs": out})
	}
	w := r.e.Stdout
	if len(out) == 0 {
		fmt.Fprintf(w, "no daily logs in %s\n", filepath.Join(r.layout.AutoMemDir, "logs"))
	}
	for i, l := range out {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "== %s  %s\n%s", l.Date, l.Path, l.Content)
		if !strings.HasSuffix(l.Content, "\n") {
			fmt.Fprintln(w)
		}
	}
	return nil
}
