package teamblock

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/memcore"
)

func TestRenderBlock(t *testing.T) {
	r := testRenderer()
	in := Input{Repo: "acme/api", TeamDir: testTeam + "/", Exists: r.exists, Refused: r.refused,
		Index: "- [Deploys](a.md) — deploy runbook\r\n- [Keys](secret.md) — prod keys\n\n"}
	b := Render(in)
	if !strings.HasPrefix(b.Text, Begin+"\n") || !strings.HasSuffix(b.Text, "\n"+End+"\n") {
		t.Fatalf("block does not run from marker to marker:\n%s", b.Text)
	}
	for _, want := range []string{
		"# Team memory of acme/api (shared with the team, synced by teammem)",
		"the team folder `" + testTeam + "/`",
		"`" + testTeam + "/MEMORY.md`",
		"## Team index\n\n- [Deploys](" + testTeam + "/a.md) — deploy runbook\n\n" + End,
	} {
		if !strings.Contains(b.Text, want) {
			t.Errorf("block lacks %q:\n%s", want, b.Text)
		}
	}
	if strings.Contains(b.Text, "prod keys") || b.Omitted != 1 || b.Truncated {
		t.Errorf("refused line: omitted %d, truncated %v, block:\n%s", b.Omitted, b.Truncated, b.Text)
	}
	if again := Render(in); again != b {
		t.Error("the same input rendered differently")
	}
}

// TestRenderUnsynced: a block kept while the server refuses the token
// says, before the index it still shows, since when it is out of date.
func TestRenderUnsynced(t *testing.T) {
	in := Input{Repo: "acme/api", TeamDir: testTeam, Index: "- [Deploys](a.md) — deploy runbook\n"}
	fresh := Render(in).Text
	in.Unsynced = time.Date(2026, 3, 4, 23, 0, 0, 0, time.FixedZone("", -5*3600))
	b := Render(in).Text
	note := "Out of date: teammem has not synced the team folder since 2026-03-05 (the server refuses its token)"
	if strings.Contains(fresh, "Out of date") || !strings.Contains(b, note) || strings.Index(b, note) > strings.Index(b, "[Deploys]") {
		t.Errorf("unsynced block:\n%s", b)
	}
}

func TestRenderEmptyAndRefusedIndex(t *testing.T) {
	b := Render(Input{Repo: "acme/api", TeamDir: testTeam})
	if !strings.Contains(b.Text, "The team index is empty") {
		t.Errorf("empty index:\n%s", b.Text)
	}
	b = Render(Input{Repo: "acme/api", TeamDir: testTeam, Index: "- [A](a.md) — sk-ant-…",
		Refused: func(k string) bool { return k == IndexKey }})
	if !strings.Contains(b.Text, "The team index is not shown") || strings.Contains(b.Text, "[A]") {
		t.Errorf("refused index:\n%s", b.Text)
	}
}

func TestRenderBudget(t *testing.T) {
	var idx strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&idx, "- [Topic %d](a.md) — hook %d\n", i, i)
	}
	b := Render(Input{Repo: "acme/api", TeamDir: testTeam, Index: idx.String()})
	if !b.Truncated {
		t.Fatal("a 300-line index was not cut")
	}
	_, index, _ := strings.Cut(b.Text, "## Team index\n\n")
	lines := strings.Split(strings.TrimSuffix(index, "\n\n"+End+"\n"), "\n")
	warning := lines[len(lines)-1]
	if !strings.HasPrefix(warning, "> WARNING: "+testTeam+"/MEMORY.md is over both the line limit (200)") {
		t.Errorf("warning line %q", warning)
	}
	kept := lines[:len(lines)-2]
	if len(kept) != memcore.MaxIndexLines || !strings.Contains(kept[199], "Topic 200]") {
		t.Errorf("kept %d lines, last %q", len(kept), kept[len(kept)-1])
	}

	long := strings.Repeat("- [T](a.md) — "+strings.Repeat("x", 200)+"\n", 150)
	b = Render(Input{Repo: "acme/api", TeamDir: testTeam, Index: long})
	_, index, _ = strings.Cut(b.Text, "## Team index\n\n")
	body, _, _ := strings.Cut(index, "\n\n> WARNING:")
	if !b.Truncated || len(body) > memcore.MaxIndexBytes || !strings.Contains(index, "the byte limit") {
		t.Errorf("byte budget: truncated %v, %d bytes kept", b.Truncated, len(body))
	}

	// One rendered line over the budget is left out whole: cut in two, a
	// destination in angle brackets would let the links inside it through
	// (found by FuzzRender).
	one := "- [T](a.md) " + strings.Repeat("[x](a.md](a.md)[x](a.md)a.md) ", 400) + "\n- [Next](a.md)"
	b = Render(Input{Repo: "acme/api", TeamDir: testTeam, Index: one})
	_, index, _ = strings.Cut(b.Text, "## Team index\n\n")
	if !b.Truncated || !strings.HasPrefix(index, "> WARNING: ") || strings.Contains(b.Text, "[x]") {
		t.Errorf("a first line over the byte budget:\n%s", b.Text)
	}
	checkBlock(t, one)
}

// TestRenderMCPGuidance: with the MCP server the guidance names
// search_memories; without, it does not.
func TestRenderMCPGuidance(t *testing.T) {
	in := Input{Repo: "acme/api", TeamDir: "/t", Index: "- [A](a.md) — a\n"}
	if b := Render(in); strings.Contains(b.Text, "search_memories") {
		t.Errorf("without MCP:\n%s", b.Text)
	}
	in.MCP = true
	if b := Render(in); !strings.Contains(b.Text, "call the `search_memories` tool of the teammem MCP server") {
		t.Errorf("with MCP:\n%s", b.Text)
	}
}
