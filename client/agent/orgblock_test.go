package agent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/testkit/gittest"
)

// TestBlockFollowsOrgFolder: the block carries the org memory's index
// after the team index, and an edit of the org folder (another engine's
// pull) reaches it without a sync of the team folder; nothing changed,
// nothing is rendered.
func TestBlockFollowsOrgFolder(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	org := t.TempDir()
	writeTree(t, org, map[string]string{"MEMORY.md": "- [Review](review.md) — two approvals\n", "review.md": "Two.\n"})
	server := map[string]string{"MEMORY.md": "- [Deploys](deploys.md) — deploy runbook\n", "deploys.md": "Deploys.\n"}
	r := newRig(t, server, nil, func(c *Config) {
		c.Block = BlockConfig{Checkouts: StaticCheckouts(main), Orgs: []OrgFolder{{Repo: "acme/.memory", Dir: org}},
			Targets: func(string) []assistants.Assistant {
				return []assistants.Assistant{assistants.Claude, assistants.Codex}
			}}
	})
	r.sync(t)
	r.sync(t)
	b := r.engine.blockWriter()
	for _, file := range []string{assistants.Claude.File, assistants.Codex.File} {
		got := readFile(t, filepath.Join(main, file))
		if i, j := strings.Index(got, "deploy runbook"), strings.Index(got, "[Review]("+filepath.ToSlash(org)+"/review.md) — two approvals"); i < 0 || j < i {
			t.Fatalf("%s:\n%s", file, got)
		}
	}
	if b.inputsChanged() {
		t.Fatal("inputs changed with nothing done")
	}
	renders := b.renders
	r.engine.republish(context.Background())
	if b.renders != renders {
		t.Error("a republish with nothing changed rendered the block")
	}

	writeTree(t, org, map[string]string{"MEMORY.md": "- [Review](review.md) — three approvals\n- [Oncall](oncall.md) — the pager\n",
		"oncall.md": "Pager.\n"})
	if !b.inputsChanged() {
		t.Fatal("an edit of the org folder is not seen")
	}
	r.engine.republish(context.Background())
	for _, file := range []string{assistants.Claude.File, assistants.Codex.File} {
		got := readFile(t, filepath.Join(main, file))
		if !strings.Contains(got, "three approvals") || !strings.Contains(got, "the pager") || strings.Contains(got, "two approvals") {
			t.Errorf("after the org edit, %s:\n%s", file, got)
		}
	}
}
