package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client/agent"
	"github.com/teammem/teammem/client/userconfig"
	"github.com/teammem/teammem/testkit/gittest"
)

// orgEnv is a cliEnv in checkout co with home as the user's home.
func orgEnv(home, co string, env map[string]string) (*cliEnv, *bytes.Buffer) {
	var out bytes.Buffer
	return &cliEnv{Stdout: &out, Stderr: &out, Stdin: strings.NewReader(""), Cwd: co, Home: home,
		Getenv: func(k string) string { return env[k] }}, &out
}

// TestSyncOrgMemory: a one-shot sync in a checkout of acme/api syncs
// acme/.memory into the org folder too, and the checkout's block carries
// its index after the team index; status shows it.
func TestSyncOrgMemory(t *testing.T) {
	ts := newTestServer(t, true)
	ts.put(t, "acme/.memory", api.PutRequest{Entries: map[string]string{
		"MEMORY.md": "- [Deploys](deploys.md) — we deploy on Tuesdays\n", "deploys.md": "Tuesdays.\n"}})
	ts.put(t, "acme/api", api.PutRequest{Entries: map[string]string{"MEMORY.md": "- [API](api.md) — api notes\n", "api.md": "x\n"}})
	home := t.TempDir()
	co, _ := gittest.NewCheckout(t, "git@github.com:acme/api.git")
	env := map[string]string{"TEAMMEM_SERVER": ts.url, "TEAMMEM_TOKEN": ts.token(t, "ana", 30*24*time.Hour, "acme/api:write"),
		"TEAMMEM_STATE_DIR": t.TempDir(), "TEAMMEM_ASSISTANTS": "claude"}
	e, out := orgEnv(home, co, env)
	if code := exitCode(e, run(context.Background(), e, []string{"sync"})); code != 0 {
		t.Fatalf("sync: exit %d: %s", code, out)
	}
	orgDir := filepath.Join(home, ".claude", "org-memory", "acme")
	if b, err := os.ReadFile(filepath.Join(orgDir, "deploys.md")); err != nil || string(b) != "Tuesdays.\n" {
		t.Fatalf("org folder: %q, %v; output:\n%s", b, err, out)
	}
	block, err := os.ReadFile(filepath.Join(co, "CLAUDE.local.md"))
	if err != nil {
		t.Fatal(err)
	}
	team, org := strings.Index(string(block), "api notes"), strings.Index(string(block), "[Deploys]("+filepath.ToSlash(orgDir)+"/deploys.md) — we deploy on Tuesdays")
	if team < 0 || org < team {
		t.Errorf("block:\n%s\noutput:\n%s", block, out)
	}
	if !strings.Contains(out.String(), "org memory acme/.memory") || !strings.Contains(out.String(), "team memory acme/api") {
		t.Errorf("output does not head the org memory's report:\n%s", out)
	}
	e, out = orgEnv(home, co, env)
	if code := exitCode(e, run(context.Background(), e, []string{"status"})); code != 0 {
		t.Fatalf("status: exit %d: %s", code, out)
	}
	if want := "org mem:   acme/.memory in " + orgDir + ": last sync "; !strings.Contains(out.String(), want) {
		t.Errorf("status lacks %q:\n%s", want, out)
	}
}

// TestRegisteredOrgRunners: run syncs each namespace's org memory once,
// however many registered checkouts lie in it, every namespace of a
// nested group's, and none once the last checkout of it is removed.
func TestRegisteredOrgRunners(t *testing.T) {
	home := t.TempDir()
	api1, _ := gittest.NewCheckout(t, "git@github.com:acme/api.git")
	web, _ := gittest.NewCheckout(t, "git@github.com:acme/web.git")
	proj, _ := gittest.NewCheckout(t, "https://gitlab.example.com/group/sub/proj.git")
	env := map[string]string{"TEAMMEM_SERVER": "http://127.0.0.1:1", "TEAMMEM_STATE_DIR": t.TempDir(), "TEAMMEM_LOG_LEVEL": "error"}
	e, _ := orgEnv(home, home, env)
	orgRepos := func(uc userconfig.Config) []string {
		var out []string
		for key := range registeredRunners(e, commonFlags{server: env["TEAMMEM_SERVER"], logLevel: "error"}, runFlags{}, filepath.Join(home, "agent.toml"), uc,
			newPrinter(e, "run", false), slog.New(slog.NewTextHandler(io.Discard, nil)), &agentMemSync{e: e}, &orgNudges{}) {
			if dir := agent.RunnerFolder(key); strings.Contains(dir, "org-memory") {
				out = append(out, filepath.Base(dir))
			}
		}
		slices.Sort(out)
		return out
	}
	all := userconfig.Config{Checkouts: []userconfig.Checkout{{Path: api1, Repo: "acme/api"}, {Path: web, Repo: "acme/web"}, {Path: proj, Repo: "group/sub/proj"}}}
	if got := orgRepos(all); !slices.Equal(got, []string{"acme", "group", "group+sub"}) {
		t.Errorf("org folders %q", got)
	}
	all.Checkouts = all.Checkouts[1:]
	if got := orgRepos(all); !slices.Equal(got, []string{"acme", "group", "group+sub"}) {
		t.Errorf("one acme checkout left: org folders %q", got)
	}
	all.Checkouts = all.Checkouts[1:]
	if got := orgRepos(all); !slices.Equal(got, []string{"group", "group+sub"}) {
		t.Errorf("no acme checkout left: org folders %q", got)
	}
}

// TestOrgNudges: an org engine's pull tells every team folder whose block
// carries it, once until taken, and a report that pulled nothing tells
// none; a folder keeps its channel across reloads.
func TestOrgNudges(t *testing.T) {
	var n orgNudges
	acme := []agent.OrgFolder{{Repo: "acme/.memory"}}
	api1, web := n.channel("/team/api", acme), n.channel("/team/web", acme)
	nested := n.channel("/team/proj", []agent.OrgFolder{{Repo: "group/sub/.memory"}, {Repo: "group/.memory"}})
	if again := n.channel("/team/api", acme); again != api1 {
		t.Error("a reload gave the team folder another channel")
	}
	told := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	n.pulled("acme/.memory", agent.Report{})
	if told(api1) || told(web) {
		t.Error("a report that pulled nothing told a block")
	}
	n.pulled("acme/.memory", agent.Report{Pulled: []string{"MEMORY.md"}})
	n.pulled("acme/.memory", agent.Report{Pulled: []string{"MEMORY.md"}})
	if !told(api1) || !told(web) || told(api1) || told(nested) {
		t.Error("a pull of acme/.memory did not tell both acme folders once, or told group's")
	}
	n.pulled("group/.memory", agent.Report{Deleted: []string{"x.md"}})
	if !told(nested) {
		t.Error("a pull of group/.memory did not tell the nested project's folder")
	}
}
