package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/internal/gittest"
)

// TestEngineBlockWarnsOfStaleReferences: an index line whose topic names
// code the checkout's HEAD no longer holds ends with a warning naming it;
// once HEAD holds it again, the warning goes.
func TestEngineBlockWarnsOfStaleReferences(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	server := map[string]string{
		"MEMORY.md": "- [Deploys](deploys.md) — deploy runbook\n- [Style](style.md) — code style\n",
		"deploys.md": "---\nname: deploys\n---\nDeploys go through `scripts/release.sh`; the retry is `client/push.go:RetryPush`.\n" +
			"```\n`client/example.go`\n```\n",
		"style.md": "---\nname: style\n---\nSee `./README.md`.\n",
	}
	r := newRig(t, server, nil, func(c *Config) { c.Block = BlockConfig{Checkouts: StaticCheckouts(main)} })
	r.sync(t)
	block := readFile(t, filepath.Join(main, teamblock.LocalMdName))
	want := "— deploy runbook ⚠ stale: `scripts/release.sh`, `client/push.go:RetryPush` — check the code before trusting it\n"
	if !strings.Contains(block, want) || !strings.Contains(block, "— code style\n") || strings.Contains(block, "example.go") {
		t.Fatalf("block:\n%s", block)
	}
	if r.engine.stale.count != 2 {
		t.Errorf("stale count %d, want 2", r.engine.stale.count)
	}

	for name, content := range map[string]string{"scripts/release.sh": "#!/bin/sh\n", "client/push.go": "func RetryPush() {}\n"} {
		p := filepath.Join(main, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	r.sync(t)
	if block := readFile(t, filepath.Join(main, teamblock.LocalMdName)); !strings.Contains(block, want) {
		t.Errorf("files in the working tree only must not clear the warning:\n%s", block)
	}
	gittest.Run(t, main, "add", "scripts", "client")
	gittest.Run(t, main, "commit", "-q", "-m", "add")
	r.sync(t)
	if block := readFile(t, filepath.Join(main, teamblock.LocalMdName)); strings.Contains(block, "⚠") {
		t.Errorf("after the commit the warning stays:\n%s", block)
	}
}

func TestStatusCountsStaleReferences(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"MEMORY.md":  "- [A](a.md) — a\n",
		"a.md":       "`client/gone.go` `./README.md` `./README.md:9`\n",
		"logs/x.txt": "`client/not-a-topic.go`\n",
	})
	st, err := ReadStatus(context.Background(), StatusOptions{Repo: "acme/api", Dir: dir, StateDir: t.TempDir(),
		Server: "https://teammem.example", Checkouts: StaticCheckouts(main)})
	if err != nil || st.StaleReferences != 2 {
		t.Fatalf("stale references %d, err %v; want 2", st.StaleReferences, err)
	}
	st, err = ReadStatus(context.Background(), StatusOptions{Repo: "acme/api", Dir: dir, StateDir: t.TempDir(),
		Server: "https://teammem.example", Checkouts: StaticCheckouts(t.TempDir())})
	if err != nil || st.StaleReferences != 0 {
		t.Errorf("outside a checkout: %d, %v", st.StaleReferences, err)
	}
}
