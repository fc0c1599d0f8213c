//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/memcore/secrets/secretstest"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/proctest"
)

// requestIDRE finds the request id of an error body, which differs per
// request.
var requestIDRE = regexp.MustCompile(`"request_id":"[0-9a-f]*"`)

// secondMachine is another home of the same user on w's server, logged in
// with a token of subject with the grant given.
func (w *workstation) secondMachine(subject, grant string) *workstation {
	w.t.Helper()
	return &workstation{t: w.t, home: w.t.TempDir(), srv: w.srv, token: issue(w.t, w.srv.dataDir, subject, grant)}
}

// issue creates a token on the server's data directory.
func issue(t *testing.T, dataDir, subject, grant string) string {
	t.Helper()
	tok := startProc(t, serverBin, "token", "create", "--data-dir", dataDir, "--subject", subject, "--grant", grant)
	if err := tok.wait(); err != nil {
		t.Fatalf("token create: %v\n%s", err, tok.stderr)
	}
	return strings.TrimSpace(tok.stdout.String())
}

// showFolder logs every file below dir (the closing note's picture of a
// machine's folder).
func showFolder(t *testing.T, name, dir string) {
	t.Helper()
	fs := files(t, dir)
	var b strings.Builder
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range fs {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, "--- %s\n%s", k, fs[k])
	}
	t.Logf("%s (%s):\n%s", name, dir, b.String())
}

// TestPersonalMemoryTwoMachines: one user, two machines (two homes,
// checkouts of acme/e2e at different paths), personal sync turned on by
// `add --personal` on one and `personal = true` in agent.toml on the
// other. Their private memory folders converge, edits made on both while
// both agents were stopped merge (MEMORY.md by line union, a topic file
// three-way), the team folders stay the team's, and nothing personal
// reaches the team repository. Another subject holding **:admin gets the
// same 403 for the user's personal memory as for one that does not exist,
// on the API, its events, search and the repository list.
func TestPersonalMemoryTwoMachines(t *testing.T) {
	a := newWorkstation(t)
	b := a.secondMachine("dev", "acme/**:write")
	coA, _ := gittest.NewCheckout(t, "git@github.com:acme/e2e.git")
	coB, _ := gittest.NewCheckout(t, "https://github.com/Acme/E2E.git")
	if coA == coB {
		t.Fatal("the two checkouts share a path")
	}
	a.ok(coA, a.token+"\n", "login", "--server", a.srv.url())
	a.ok(coA, "", "add", "--personal")
	b.ok(coB, b.token+"\n", "login", "--server", b.srv.url())
	config := filepath.Join(b.home, ".config", "teammem", "agent.toml")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte("personal = true\n"+string(data)), 0o600); err != nil {
		t.Fatal(err)
	}
	b.ok(coB, "", "add")
	memA, memB := a.memDir(coA), b.memDir(coB)
	teamA, teamB := a.teamDir(coA), b.teamDir(coB)
	if memA == memB || filepath.Dir(filepath.Clean(teamA)) != filepath.Clean(memA) {
		t.Fatalf("folders: %s %s, team %s", memA, memB, teamA)
	}
	run := func(w *workstation) *proc {
		p := w.agent(w.home, "", "run", "--debounce", "200ms", "--max-delay", "1s", "--poll", "1s")
		t.Cleanup(func() { p.stop(t, syscall.SIGTERM) })
		return p
	}
	runA, runB := run(a), run(b)
	defer func() {
		if t.Failed() {
			t.Logf("run A:\n%s\nrun B:\n%s\nserver:\n%s", runA.stderr, runB.stderr, a.srv.stderr)
		}
	}()

	index := "- [Build](build.md) — how I build this repo\n"
	write(t, memA, "MEMORY.md", index)
	write(t, memA, "build.md", lines(6, nil))
	write(t, teamA, "team-note.md", "for the team\n")
	proctest.WaitFor(t, "machine B to get machine A's private memory", func() bool {
		return read(memB, "MEMORY.md") == index && read(memB, "build.md") == lines(6, nil)
	})
	write(t, memB, "laptop.md", "only on my laptop so far\n")
	proctest.WaitFor(t, "machine A to get machine B's note", func() bool { return read(memA, "laptop.md") == "only on my laptop so far\n" })
	proctest.WaitFor(t, "the team note on machine B's team folder", func() bool { return read(teamB, "team-note.md") == "for the team\n" })

	// Both agents stop; both machines edit; both start again.
	runA.stop(t, syscall.SIGTERM)
	runB.stop(t, syscall.SIGTERM)
	write(t, memA, "MEMORY.md", index+"- [Deploy](deploy.md) — from the workstation\n")
	write(t, memA, "deploy.md", "deploy with make release\n")
	write(t, memA, "build.md", lines(6, map[int]string{0: "line a, edited on the workstation"}))
	write(t, memB, "MEMORY.md", index+"- [Laptop](laptop.md) — from the laptop\n")
	write(t, memB, "build.md", lines(6, map[int]string{5: "line f, edited on the laptop"}))
	runA, runB = run(a), run(b)
	wantIndex := []string{"- [Build](build.md) — how I build this repo", "- [Deploy](deploy.md) — from the workstation", "- [Laptop](laptop.md) — from the laptop"}
	wantBuild := lines(6, map[int]string{0: "line a, edited on the workstation", 5: "line f, edited on the laptop"})
	converged := func() bool {
		for _, dir := range []string{memA, memB} {
			got := strings.Split(strings.TrimSpace(read(dir, "MEMORY.md")), "\n")
			slices.Sort(got)
			if !slices.Equal(got, wantIndex) || read(dir, "build.md") != wantBuild || read(dir, "deploy.md") != "deploy with make release\n" {
				return false
			}
		}
		return read(memA, "MEMORY.md") == read(memB, "MEMORY.md")
	}
	proctest.WaitFor(t, "both machines to converge after the concurrent edit", converged)
	showFolder(t, "machine A (workstation)", memA)
	showFolder(t, "machine B (laptop)", memB)
	if c := conflictCopies(t, memA); len(c) > 0 {
		t.Errorf("conflict copies on machine A: %v", c)
	}

	personal := server.PersonalRepo("dev", "acme/e2e")
	team := a.srv.entries("acme/e2e")
	if len(team) != 1 || team["team-note.md"] != "for the team\n" {
		t.Errorf("the team repository holds %v; want team-note.md alone", team)
	}
	for _, dir := range []string{teamA, teamB} {
		if got := files(t, dir); len(got) != 1 || got["team-note.md"] != "for the team\n" {
			t.Errorf("team folder %s holds %v; want team-note.md alone", dir, got)
		}
	}
	for _, dir := range []string{coA, coB} {
		if data, err := os.ReadFile(filepath.Join(dir, "CLAUDE.local.md")); err == nil && strings.Contains(string(data), "Deploy") {
			t.Errorf("%s/CLAUDE.local.md names personal memory:\n%s", dir, data)
		}
	}
	mine, err := client.New(client.Options{BaseURL: a.srv.url(), Token: a.token})
	if err != nil {
		t.Fatal(err)
	}
	m, err := mine.Get(context.Background(), "~/acme/e2e", client.GetOptions{})
	if err != nil || m.Content.Entries["deploy.md"] == "" || m.Content.Entries["team-note.md"] != "" {
		t.Fatalf("the owner's personal memory: %v %v", m, err)
	}
	if out := a.ok(coA, "", "log", "--personal"); !strings.Contains(out, "deploy.md") {
		t.Errorf("log --personal does not name deploy.md:\n%s", out)
	}
	if out := b.ok(coB, "", "show", "--personal", "deploy.md"); strings.TrimSpace(out) != "deploy with make release" {
		t.Errorf("show --personal deploy.md on machine B = %q", out)
	}
	if out := b.ok(coB, "", "search", "--personal", "release"); !strings.Contains(out, "deploy.md") {
		t.Errorf("search --personal on machine B:\n%s", out)
	}
	if out := a.ok(coA, "", "search", "release"); strings.Contains(out, "deploy.md") {
		t.Errorf("the team search of acme/e2e finds personal memory:\n%s", out)
	}
	var all struct{ Checkouts []struct{ Repo string } }
	if err := json.Unmarshal([]byte(b.ok(b.home, "", "status", "--json")), &all); err != nil || len(all.Checkouts) != 2 ||
		all.Checkouts[0].Repo != "acme/e2e" || all.Checkouts[1].Repo != "~/acme/e2e" {
		t.Errorf("status of machine B's registered checkout = %+v, %v; want acme/e2e and ~/acme/e2e", all, err)
	}
	var st struct {
		Repo, Dir string
		Pending   []any
	}
	if err := json.Unmarshal([]byte(a.ok(coA, "", "status", "--personal", "--repo-dir", coA, "--json")), &st); err != nil ||
		st.Repo != "~/acme/e2e" || filepath.Clean(st.Dir) != filepath.Clean(memA) || len(st.Pending) != 0 {
		t.Errorf("status --personal = %+v, %v", st, err)
	}

	// Another subject, admin of everything, sees nothing of it.
	admin := issue(t, a.srv.dataDir, "root", "**:admin")
	absent := server.PersonalRepo("dev", "acme/none")
	get := func(path string) (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.srv.url()+path, nil)
		req.Header.Set("Authorization", "Bearer "+admin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		return resp.StatusCode, requestIDRE.ReplaceAllString(string(body), "")
	}
	for _, path := range []string{api.PathTeamMemory + "?repo=", api.PathEvents + "?repo=", api.PathHistory + "?key=deploy.md&repo=",
		api.PathSearch + "?q=deploy&repo="} {
		code1, body1 := get(path + url.QueryEscape(personal))
		code2, body2 := get(path + url.QueryEscape(absent))
		if code1 != http.StatusForbidden || code1 != code2 ||
			strings.ReplaceAll(body1, personal, "R") != strings.ReplaceAll(body2, absent, "R") {
			t.Errorf("admin GET %s: %d %s, and for an absent one %d %s; want the same 403", path, code1, body1, code2, body2)
		}
	}
	if code, body := get(api.PathRepos); code != http.StatusOK || strings.Contains(body, "~") {
		t.Errorf("admin's repository list: %d %s", code, body)
	}
	if code, body := get(api.PathSearch + "?q=deploy"); code != http.StatusOK || strings.Contains(body, "deploy.md") {
		t.Errorf("admin's search: %d %s", code, body)
	}
	if code := runA.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("run A exit %d:\n%s", code, runA.stderr)
	}
	if code := runB.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("run B exit %d:\n%s", code, runB.stderr)
	}
}

// TestPersonalMemoryKeepsTheTeamRules: the personal sync is the team
// sync's engine and keeps its rules: a credential stays on the machine
// (the push leaves it out, says so without printing it), the history
// lists each version and `restore --personal` brings an old one back,
// which the next sync writes into the folder like any edit.
func TestPersonalMemoryKeepsTheTeamRules(t *testing.T) {
	w := newWorkstation(t)
	co, _ := gittest.NewCheckout(t, "git@github.com:acme/e2e.git")
	w.ok(co, w.token+"\n", "login", "--server", w.srv.url())
	w.ok(co, "", "add", "--personal")
	mem := w.memDir(co)
	mine, err := client.New(client.Options{BaseURL: w.srv.url(), Token: w.token})
	if err != nil {
		t.Fatal(err)
	}
	onServer := func() map[string]string {
		t.Helper()
		m, err := mine.Get(context.Background(), "~/acme/e2e", client.GetOptions{})
		if err != nil {
			t.Fatalf("the owner's personal memory: %v", err)
		}
		return m.Content.Entries
	}
	sync := func(wantCode int) string {
		t.Helper()
		p := w.agent(co, "", "sync", "--personal")
		if err := p.wait(); p.cmd.ProcessState.ExitCode() != wantCode {
			t.Fatalf("sync --personal: %v, want exit %d\nstdout:\n%s\nstderr:\n%s", err, wantCode, p.stdout, p.stderr)
		}
		return p.stdout.String() + p.stderr.String()
	}

	write(t, mem, "notes.md", "first take\n")
	sync(0)
	write(t, mem, "notes.md", "second take\n")
	tok := secretstest.GitHubToken()
	write(t, mem, "creds.md", "deploy with "+tok+"\n")
	out := sync(1) // exit 1: not everything was synced
	got := onServer()
	if got["notes.md"] != "second take\n" {
		t.Fatalf("the server's personal memory after two syncs: %v", got)
	}
	if _, ok := got["creds.md"]; ok || !strings.Contains(out, "creds.md") || strings.Contains(out, tok) {
		t.Errorf("a credential in personal memory: on the server %v; the sync said (must name creds.md, never the token):\n%s", ok, out)
	}
	if read(mem, "creds.md") == "" {
		t.Error("creds.md was taken out of the folder")
	}

	var hist api.History
	if err := json.Unmarshal([]byte(w.ok(co, "", "log", "--personal", "notes.md", "--json")), &hist); err != nil || len(hist.Revisions) != 2 {
		t.Fatalf("log --personal notes.md = %+v, %v; want two revisions", hist, err)
	}
	first := hist.Revisions[1].Version
	var r struct {
		Repo                 string
		FromVersion, Version int64
	}
	if err := json.Unmarshal([]byte(w.ok(co, "", "restore", "--personal", "notes.md", "--version", fmt.Sprint(first), "--json")), &r); err != nil ||
		r.Repo != "~/acme/e2e" || r.FromVersion != first {
		t.Fatalf("restore --personal = %+v, %v", r, err)
	}
	if got := onServer()["notes.md"]; got != "first take\n" {
		t.Errorf("notes.md on the server after the restore = %q", got)
	}
	sync(1) // creds.md is still there
	if got := read(mem, "notes.md"); got != "first take\n" {
		t.Errorf("notes.md in the folder after the restore and a sync = %q", got)
	}
	if team := w.srv.entries("acme/e2e"); len(team) != 0 {
		t.Errorf("the team repository holds %v", team)
	}
}

// TestPlainSyncTakesPersonalMemory: after `add --personal`, a plain `sync`
// in the checkout syncs its team folder and its private memory folder,
// saying so per folder; `sync --dir` stays one folder.
func TestPlainSyncTakesPersonalMemory(t *testing.T) {
	w := newWorkstation(t)
	co, _ := gittest.NewCheckout(t, "git@github.com:acme/e2e.git")
	w.ok(co, w.token+"\n", "login", "--server", w.srv.url())
	w.ok(co, "", "add", "--personal")
	write(t, w.memDir(co), "mine.md", "only mine\n")
	write(t, w.teamDir(co), "ours.md", "for the team\n")
	out := w.ok(co, "", "sync")
	for _, want := range []string{"team memory acme/e2e (" + filepath.Clean(w.teamDir(co)) + ")", "personal memory ~/acme/e2e (" + filepath.Clean(w.memDir(co)) + ")", `pushed 1: "mine.md"`, `pushed 1: "ours.md"`} {
		if !strings.Contains(out, want) {
			t.Errorf("sync output lacks %q:\n%s", want, out)
		}
	}
	mine, err := client.New(client.Options{BaseURL: w.srv.url(), Token: w.token})
	if err != nil {
		t.Fatal(err)
	}
	m, err := mine.Get(context.Background(), "~/acme/e2e", client.GetOptions{})
	if err != nil || m.Content.Entries["mine.md"] != "only mine\n" {
		t.Fatalf("personal memory on the server after a plain sync: %v %v", m, err)
	}
	if _, ok := w.srv.entries("acme/e2e")["mine.md"]; ok {
		t.Error("personal memory reached the team repository")
	}
}
