package session

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/internal/memtest"
)

func TestAgentMemoryDir(t *testing.T) {
	env := memTestEnv(t, nil)
	base := filepath.Join(env.Home, ".claude")
	tests := []struct {
		name, agent string
		scope       AgentMemoryScope
		want        string
		wantErr     error
	}{
		{"user", "reviewer", AgentScopeUser, filepath.Join(base, "agent-memory", "reviewer") + string(filepath.Separator), nil},
		{"project", "reviewer", AgentScopeProject, filepath.Join(env.Cwd, ".claude", "agent-memory", "reviewer") + string(filepath.Separator), nil},
		{"local", "reviewer", AgentScopeLocal, filepath.Join(env.Cwd, ".claude", "agent-memory-local", "reviewer") + string(filepath.Separator), nil},
		{"plugin agent", "my-plugin:reviewer", AgentScopeProject, filepath.Join(env.Cwd, ".claude", "agent-memory", "my-plugin-reviewer") + string(filepath.Separator), nil},
		{"traversal", "../../etc", AgentScopeUser, "", ErrInvalidAgentType},
		{"dotdot", "..", AgentScopeUser, "", ErrInvalidAgentType},
		{"backslash", `a\b`, AgentScopeUser, "", ErrInvalidAgentType},
		{"empty", "", AgentScopeUser, "", ErrInvalidAgentType},
		{"unknown scope", "reviewer", "global", "", ErrInvalidAgentScope},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AgentMemoryDir(env, tt.agent, tt.scope)
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Errorf("AgentMemoryDir(%q, %q) = %q, %v; want %q, %v", tt.agent, tt.scope, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestAgentSnapshotLifecycle(t *testing.T) {
	env := memTestEnv(t, nil)
	const agent = "plug:reviewer"
	check := func(want SnapshotAction) SnapshotStatus {
		t.Helper()
		st, err := CheckAgentSnapshot(env, agent, AgentScopeLocal)
		if err != nil {
			t.Fatal(err)
		}
		if st.Action != want {
			t.Fatalf("CheckAgentSnapshot = %+v, want %q", st, want)
		}
		return st
	}
	check(SnapshotNone) // no snapshot shipped

	snap, _ := AgentSnapshotDir(env, agent)
	v1 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	memtest.Write(t, filepath.Join(snap, SnapshotMetaName), `{"updatedAt": "2026-01-02T03:04:05Z"}`)
	memtest.Write(t, filepath.Join(snap, "conventions.md"), "use tabs\n")
	memtest.Write(t, filepath.Join(snap, "db", "schema.md"), "users table\n")
	memtest.Write(t, filepath.Join(snap, ".hidden.md"), "not copied\n")
	memtest.Write(t, filepath.Join(snap, "script.sh"), "not copied\n")
	if st := check(SnapshotInitialize); !st.UpdatedAt.Equal(v1) {
		t.Errorf("UpdatedAt = %v, want %v", st.UpdatedAt, v1)
	}

	keys, err := InitializeFromSnapshot(env, agent, AgentScopeLocal)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"conventions.md", "db/schema.md"}, keys); diff != "" {
		t.Errorf("copied keys (-want +got):\n%s", diff)
	}
	mem, _ := AgentMemoryDir(env, agent, AgentScopeLocal)
	if data, err := os.ReadFile(filepath.Join(mem, "db", "schema.md")); err != nil || string(data) != "users table\n" {
		t.Errorf("copied file = %q, %v", data, err)
	}
	if st := check(SnapshotNone); !st.SyncedFrom.Equal(v1) {
		t.Errorf("SyncedFrom = %v, want %v", st.SyncedFrom, v1)
	}

	// The project ships a newer snapshot; the agent has learnt something.
	memtest.Write(t, filepath.Join(snap, SnapshotMetaName), `{"updatedAt": "2026-02-01T00:00:00Z"}`)
	memtest.Write(t, filepath.Join(snap, "conventions.md"), "use spaces\n")
	memtest.Write(t, filepath.Join(mem, "learnt.md"), "mine\n")
	check(SnapshotUpdateAvailable)
	if err := MarkSnapshotSynced(env, agent, AgentScopeLocal); err != nil {
		t.Fatal(err)
	}
	check(SnapshotNone)

	memtest.Write(t, filepath.Join(snap, SnapshotMetaName), `{"updatedAt": "2026-03-01T00:00:00Z"}`)
	check(SnapshotUpdateAvailable)
	if _, err := ReplaceFromSnapshot(env, agent, AgentScopeLocal); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(mem, "learnt.md")); !os.IsNotExist(err) {
		t.Errorf("replace kept the old memory file: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(mem, "conventions.md")); string(data) != "use spaces\n" {
		t.Errorf("replaced file = %q", data)
	}
	check(SnapshotNone)
}

func TestAgentSnapshotWithoutMetaUsesNewestFile(t *testing.T) {
	env := memTestEnv(t, nil)
	snap, _ := AgentSnapshotDir(env, "a")
	memtest.Write(t, filepath.Join(snap, "x.md"), "x\n")
	old := time.Date(2025, 5, 5, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(snap, "x.md"), old, old); err != nil {
		t.Fatal(err)
	}
	mem, _ := AgentMemoryDir(env, "a", AgentScopeProject)
	memtest.Write(t, filepath.Join(mem, "own.md"), "own\n")
	st, err := CheckAgentSnapshot(env, "a", AgentScopeProject)
	if err != nil || st.Action != SnapshotUpdateAvailable || !st.UpdatedAt.Equal(old) {
		t.Fatalf("CheckAgentSnapshot = %+v, %v; want update available dated %v (memory has no record)", st, err, old)
	}
}
