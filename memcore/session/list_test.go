package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/teammem/teammem/memcore/internal/memtest"
)

// TestListSessionNotes: newest first, title and current state without
// their description lines, sizes against the §10 budgets; a notes file
// behind a symlink, a stray file and a folder without notes are left out.
func TestListSessionNotes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "project")
	notes := func(id, content string, at time.Time) {
		p := filepath.Join(dir, id, "session-memory", "summary.md")
		memtest.Write(t, p, content)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	day := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	filled := strings.Replace(DefaultSessionTemplate, "_A short and distinctive 5-10 word descriptive title for the session._\n",
		"_A short and distinctive 5-10 word descriptive title for the session._\nFix the flaky deploy test\n", 1)
	filled = strings.Replace(filled, "_What is actively being worked on right now? Pending tasks not yet completed._\n",
		"_What is actively being worked on right now? Pending tasks not yet completed._\nWaiting for CI.\nThen merge.\n", 1)
	big := strings.Replace(DefaultSessionTemplate, "# Worklog\n", "# Worklog\n"+strings.Repeat("step done\n", 900), 1)
	notes("aaa", filled, day)
	notes("bbb", DefaultSessionTemplate, day.Add(time.Hour))
	notes("ccc", big, day.Add(-time.Hour))
	memtest.Write(t, filepath.Join(dir, "ddd.jsonl"), "{}\n")
	memtest.Mkdir(t, filepath.Join(dir, "eee", "session-memory"))
	outside := filepath.Join(t.TempDir(), "secret.md")
	memtest.Write(t, outside, "# Session Title\nnot notes\n")
	memtest.Mkdir(t, filepath.Join(dir, "fff", "session-memory"))
	if err := os.Symlink(outside, filepath.Join(dir, "fff", "session-memory", "summary.md")); err != nil {
		t.Fatal(err)
	}

	got, err := ListSessionNotes(dir, DefaultSessionTemplate)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range got {
		ids = append(ids, n.SessionID)
	}
	if diff := cmp.Diff([]string{"bbb", "aaa", "ccc"}, ids); diff != "" {
		t.Fatalf("sessions (-want +got):\n%s", diff)
	}
	if n := got[1]; n.Title != "Fix the flaky deploy test" || n.CurrentState != "Waiting for CI.\nThen merge." || n.Empty || n.Size.OverBudget {
		t.Errorf("filled notes: %+v", n)
	}
	if n := got[0]; !n.Empty || n.Title != "" {
		t.Errorf("template only: %+v", n)
	}
	if n := got[2]; len(n.Size.Oversized) != 1 || n.Size.Oversized[0].Header != "# Worklog" || n.Size.OverBudget {
		t.Errorf("a long worklog: %+v", n.Size)
	}
	if none, err := ListSessionNotes(filepath.Join(dir, "missing"), DefaultSessionTemplate); err != nil || none != nil {
		t.Errorf("missing folder: %v, %v", none, err)
	}
}

// TestListAgentMemories: every scope's type folders with their files and
// snapshot state, a type with only a snapshot, names that are no type
// names left out, a symlinked project folder listed with its error.
func TestListAgentMemories(t *testing.T) {
	env := memTestEnv(t, nil)
	claude := filepath.Join(env.Cwd, ".claude")
	user := filepath.Join(env.Home, ".claude", "agent-memory")
	memtest.Write(t, filepath.Join(user, "reviewer", "MEMORY.md"), "- prefer small diffs\n")
	memtest.Write(t, filepath.Join(user, "reviewer", "style.md"), "tabs\n")
	memtest.Write(t, filepath.Join(user, "reviewer", "notes.txt"), "not counted\n")
	memtest.Write(t, filepath.Join(user, ".hidden", "MEMORY.md"), "x\n")
	memtest.Write(t, filepath.Join(claude, "agent-memory", "planner", "MEMORY.md"), "plan\n")
	memtest.Write(t, filepath.Join(claude, "agent-memory-local", "reviewer", "MEMORY.md"), "local\n")
	memtest.Write(t, filepath.Join(claude, "agent-memory-snapshots", "reviewer", "MEMORY.md"), "snapshot\n")
	memtest.Write(t, filepath.Join(claude, "agent-memory-snapshots", "seeded", "MEMORY.md"), "seed\n")
	if err := os.Symlink(t.TempDir(), filepath.Join(claude, "agent-memory", "linked")); err != nil {
		t.Fatal(err)
	}

	got := ListAgentMemories(env)
	type row struct {
		Type   string
		Scope  AgentMemoryScope
		Files  int
		Bytes  int64
		Action SnapshotAction
		Err    bool
	}
	var rows []row
	for _, m := range got {
		rows = append(rows, row{m.Type, m.Scope, m.Files, m.Bytes, m.Snapshot.Action, m.Err != nil})
	}
	want := []row{
		{"linked", AgentScopeProject, 0, 0, SnapshotNone, true},
		{"planner", AgentScopeProject, 1, 5, SnapshotNone, false},
		{"reviewer", AgentScopeUser, 2, 26, SnapshotUpdateAvailable, false},
		{"reviewer", AgentScopeLocal, 1, 6, SnapshotUpdateAvailable, false},
		{"seeded", "", 0, 0, SnapshotInitialize, false},
	}
	if diff := cmp.Diff(want, rows, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("agent memories (-want +got):\n%s", diff)
	}
	if got[2].Dir != filepath.Join(user, "reviewer")+string(filepath.Separator) {
		t.Errorf("user reviewer dir %q", got[2].Dir)
	}
}

// TestListDailyLogs: oldest first, from a day on; files that are not a
// day's log of their folders are not logs.
func TestListDailyLogs(t *testing.T) {
	mem := t.TempDir()
	for name, content := range map[string]string{
		"logs/2026/04/2026-04-30.md":  "- april\n",
		"logs/2026/05/2026-05-01.md":  "- first\n- second\n",
		"logs/2026/05/2026-05-03.md":  "- third\n",
		"logs/2026/05/2026-06-01.md":  "- wrong month folder\n",
		"logs/2026/05/notes.md":       "- not a date\n",
		"logs/2026-05-02.md":          "- not in its folders\n",
		"logs/2026/05/2026-05-02.txt": "- not markdown\n",
	} {
		memtest.Write(t, filepath.Join(mem, filepath.FromSlash(name)), content)
	}
	all, err := ListDailyLogs(mem, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var dates []string
	for _, l := range all {
		dates = append(dates, l.Date)
	}
	if diff := cmp.Diff([]string{"2026-04-30", "2026-05-01", "2026-05-03"}, dates); diff != "" {
		t.Errorf("dates (-want +got):\n%s", diff)
	}
	since, err := ListDailyLogs(mem, time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))
	if err != nil || len(since) != 2 || since[0].Content != "- first\n- second\n" {
		t.Errorf("since 2026-05-01: %+v, %v", since, err)
	}
	if none, err := ListDailyLogs(t.TempDir(), time.Time{}); err != nil || none != nil {
		t.Errorf("no logs folder: %v, %v", none, err)
	}
}
