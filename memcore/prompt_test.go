package memcore

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrompt(t *testing.T) {
	files := []File{
		{Path: "/m/CLAUDE.md", Type: Managed, Content: "managed\n"},
		{Path: "/u/CLAUDE.md", Type: User, Content: "user"},
		{Path: "/p/CLAUDE.md", Type: Project, Content: "  \n\n"},
		{Path: "/p/CLAUDE.local.md", Type: Local, Content: "local"},
		{Path: "/a/MEMORY.md", Type: AutoMem, Content: "auto"},
		{Path: "/a/team/MEMORY.md", Type: TeamMem, Content: "team"},
	}
	want := MemoryInstruction + "\n\n" +
		"Contents of /m/CLAUDE.md (managed policy instructions):\n\nmanaged\n\n" +
		"Contents of /u/CLAUDE.md (user's private global instructions for all projects):\n\nuser\n\n" +
		"Contents of /p/CLAUDE.local.md (user's private project instructions, not checked in):\n\nlocal\n\n" +
		"Contents of /a/MEMORY.md (user's auto-memory, persists across conversations):\n\nauto\n\n" +
		"Contents of /a/team/MEMORY.md (shared team memory, synced across the organization):\n\nteam"
	if diff := cmp.Diff(want, Prompt(files, nil)); diff != "" {
		t.Errorf("Prompt (-want +got):\n%s", diff)
	}
	onlyTeam := Prompt(files, func(f File) bool { return f.Type == TeamMem })
	if !strings.HasSuffix(onlyTeam, "(shared team memory, synced across the organization):\n\nteam") || strings.Contains(onlyTeam, "auto") {
		t.Errorf("filtered prompt = %q", onlyTeam)
	}
	if got := Prompt(files[2:3], nil); got != "" {
		t.Errorf("prompt of blank files = %q, want empty", got)
	}
	if d := Project.Description(); d != "project instructions, checked into the codebase" {
		t.Errorf("Project description = %q", d)
	}
}

func TestLargeFiles(t *testing.T) {
	files := []File{
		{Path: "small", Content: strings.Repeat("a", MaxMemoryChars)},
		{Path: "big", Content: strings.Repeat("é", MaxMemoryChars+1)},
	}
	want := []PromptWarning{{Path: "big", Chars: MaxMemoryChars + 1}}
	if diff := cmp.Diff(want, LargeFiles(files)); diff != "" {
		t.Errorf("LargeFiles (-want +got):\n%s", diff)
	}
}
