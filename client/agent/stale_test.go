package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/testkit/gittest"
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
	block := readFile(t, filepath.Join(main, assistants.Claude.File))
	want := "— deploy runbook ⚠ stale: `scripts/release.sh`, `client/push.go:RetryPush` — check the code before trusting it\n"
	if !strings.Contains(block, want) || !strings.Contains(block, "— code style\n") || strings.Contains(block, "example.go") {
		t.Fatalf("block:\n%s", block)
	}
	if r.engine.blockWriter().refs.count != 2 {
		t.Errorf("stale count %d, want 2", r.engine.blockWriter().refs.count)
	}

	for name, content := range map[string]string{"scripts/release.sh": "#!/bin/sh\n", "client/push.go": "func RetryPush() {}\n"} {
		p := filepath.Join(main, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	r.sync(t)
	if block := readFile(t, filepath.Join(main, assistants.Claude.File)); !strings.Contains(block, want) {
		t.Errorf("files in the working tree only must not clear the warning:\n%s", block)
	}
	gittest.Run(t, main, "add", "scripts", "client")
	gittest.Run(t, main, "commit", "-q", "-m", "add")
	r.sync(t)
	if block := readFile(t, filepath.Join(main, assistants.Claude.File)); strings.Contains(block, "⚠") {
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

// BenchmarkIdleCycle is one engine cycle with nothing to do (a watcher
// that reports no change, nothing new on the server) on a team folder of 1,000 topics of
// five references each, against a checkout: what an idle agent pays per
// cycle for the block and its stale-reference warnings, which refcheck
// answers from its cache by (HEAD, topic checksum).
func BenchmarkIdleCycle(b *testing.B) {
	t := &testing.T{}
	main, _ := gittest.NewCheckout(t, "")
	server := map[string]string{}
	var index strings.Builder
	for i := range 1000 {
		key := fmt.Sprintf("t%04d.md", i)
		fmt.Fprintf(&index, "- [T%d](%s) — topic %d\n", i, key, i)
		server[key] = fmt.Sprintf("See `a/f%d.go`, `b/g%d.go:10`, `c/h%d.go:Run`, `d/i%d.md`, `./README.md`.\n", i, i, i, i)
	}
	server["MEMORY.md"] = index.String()
	r := newRig(t, server, nil, func(c *Config) { c.Block = BlockConfig{Checkouts: StaticCheckouts(main)} })
	r.engine.local.watched(true) // as under run: the watcher reports what changes
	r.sync(t)
	r.sync(t) // the files the first sync wrote are read once more
	if r.engine.blockWriter().refs.count == 0 {
		b.Fatal("no stale references found: the benchmark measures nothing")
	}
	b.ResetTimer()
	for range b.N {
		if _, err := r.engine.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestIdleCycleRendersNoBlock: under a watcher, a cycle with nothing new on
// the server and no local change does not render the block again (no
// listing or reading of the team folder for it), unless HEAD moved: a
// commit that brings back the referenced file clears the warning at the
// next idle cycle; a block taken out by hand is put back all the same.
func TestIdleCycleRendersNoBlock(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	server := map[string]string{
		"MEMORY.md":  "- [Deploys](deploys.md) — deploy runbook\n",
		"deploys.md": "Deploys go through `scripts/release.sh`.\n",
	}
	r := newRig(t, server, nil, func(c *Config) { c.Block = BlockConfig{Checkouts: StaticCheckouts(main)} })
	r.engine.local.watched(true)
	r.sync(t)
	r.sync(t) // the files the first sync wrote are read once more
	local := filepath.Join(main, assistants.Claude.File)
	if !strings.Contains(readFile(t, local), "⚠ stale: `scripts/release.sh`") {
		t.Fatalf("no stale warning:\n%s", readFile(t, local))
	}
	before := r.engine.blockWriter().renders
	r.sync(t)
	r.sync(t)
	if n := r.engine.blockWriter().renders - before; n != 0 {
		t.Errorf("two idle cycles rendered the block %d times", n)
	}
	os.WriteFile(local, []byte("# mine\n"), 0o644)
	r.sync(t)
	if block := readFile(t, local); !strings.Contains(block, "# mine\n") || !strings.Contains(block, "deploy runbook") {
		t.Errorf("an idle cycle did not put back the block taken out by hand:\n%s", block)
	}
	p := filepath.Join(main, "scripts", "release.sh")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
	gittest.Run(t, main, "add", "scripts")
	gittest.Run(t, main, "commit", "-q", "-m", "add")
	r.sync(t)
	if block := readFile(t, local); strings.Contains(block, "⚠") || !strings.Contains(block, "deploy runbook") {
		t.Errorf("after HEAD moved, an idle cycle kept the warning:\n%s", block)
	}
}
