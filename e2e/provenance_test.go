//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/proctest"
	"github.com/teammem/teammem/testkit/realclient"
)

// TestProvenanceEverySurface: an agent, an MCP client, a CI seed and a web
// UI restore each write MEMORY.md, and the history and the blame (the real
// teammem-agent's) name each: who, through what, from which client, and
// for teammem-agent the machine, and the checkout's commit of the agent
// that runs in one.
//
//  1. ana's agent writes line A (agent, its checkout's HEAD);
//  2. mo's MCP client adds line B with a topic (mcp, its clientInfo);
//  3. the CI seed adds line C (seed);
//  4. ana's agent drops line A;
//  5. wes restores version 3 in the web UI: line A is back (restore);
//  6. the stock Claude Code adds a line through /mcp (mcp, its clientInfo).
//
// The repository's audit chain names each write, and the log verifies.
func TestProvenanceEverySurface(t *testing.T) {
	srv := startAuthServer(t)
	ana, mo := srv.token(t, "ana", repo+":write"), srv.token(t, "mo", repo+":write")
	ci, wes := srv.token(t, "ci-acme-e2e", repo+":write"), srv.token(t, "wes", repo+":write")
	const (
		lineA = "- [Deploys](deploys.md) — deploy runbook"
		lineB = "- [DB](db.md) — pool sizes"
		lineC = "- [Style](style.md) — code style"
	)
	co, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	head := strings.TrimSpace(gittest.Run(t, co, "rev-parse", "HEAD"))
	a := startAgentAs(t, srv, ana, t.TempDir(), co)
	write(t, a.dir, "deploys.md", "# deploys\n")
	write(t, a.dir, "MEMORY.md", lineA+"\n")
	onServer := func(what, want string) {
		t.Helper()
		proctest.WaitFor(t, what, func() bool { return srv.entries(repo)["MEMORY.md"] == want })
	}
	onServer("line A on the server", lineA+"\n")

	call(t, mcpHTTP(t, srv, mo), "write_memory", map[string]any{"repo": repo, "key": "db.md",
		"content": "---\ndescription: pool sizes\n---\n# db\n", "index_line": lineB}, nil)
	onServer("line B on the server", lineA+"\n"+lineB+"\n")

	folder := t.TempDir()
	write(t, folder, "style.md", "# style\n")
	write(t, folder, "MEMORY.md", lineC+"\n")
	if code, out := seedAs(t, srv, ci, folder); code != 0 {
		t.Fatalf("seed: exit %d\n%s", code, out)
	}
	proctest.WaitFor(t, "the seeded line at ana", func() bool { return strings.Contains(read(a.dir, "MEMORY.md"), lineC) })
	write(t, a.dir, "MEMORY.md", lineB+"\n"+lineC+"\n")
	onServer("line A gone", lineB+"\n"+lineC+"\n")

	uiRestore(t, srv, wes, "MEMORY.md", 3)
	onServer("line A restored", lineA+"\n"+lineB+"\n"+lineC+"\n")

	h, err := srv.api.History(context.Background(), repo, "MEMORY.md", client.HistoryOptions{})
	if err != nil || len(h.Revisions) != 5 {
		t.Fatalf("history = %+v, %v; want 5 revisions", h, err)
	}
	checks := []struct {
		subject, surface, client string
		commit                   string
		credential               *regexp.Regexp
	}{
		{"wes", "restore", "teammem-e2e-browser/1", "", regexp.MustCompile(`^session:[A-Za-z0-9_-]{43}$`)},
		{"ana", "agent", "teammem-agent/", head, regexp.MustCompile(`^token:[0-9a-f]{24}$`)},
		{"ci-acme-e2e", "seed", "teammem-agent/", "", regexp.MustCompile(`^token:[0-9a-f]{24}$`)},
		{"mo", "mcp", "teammem-e2e/1", "", regexp.MustCompile(`^token:[0-9a-f]{24}$`)},
		{"ana", "agent", "teammem-agent/", head, regexp.MustCompile(`^token:[0-9a-f]{24}$`)},
	}
	for i, c := range checks {
		r := h.Revisions[i]
		p := r.Provenance
		if p == nil || r.Author != c.subject || p.Subject != c.subject || p.Surface != c.surface || !strings.HasPrefix(p.Client, c.client) ||
			p.Commit != c.commit || !c.credential.MatchString(p.Credential) || strings.HasPrefix(c.client, "teammem-agent/") != (p.Machine != "") {
			t.Errorf("version %d: author %s, provenance %+v; want %+v", r.Version, r.Author, p, c)
		}
	}

	out := agentOut(t, srv.serverProc, a.dir, t.TempDir(), "blame", "MEMORY.md", "--token", ana)
	var b api.Blame
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatalf("blame --json: %v\n%s", err, out)
	}
	surfaces := map[int64]string{}
	for _, r := range b.Revisions {
		surfaces[r.Version] = r.Provenance.Surface + " by " + r.Provenance.Subject
	}
	var got []string
	for _, l := range b.Lines {
		got = append(got, surfaces[l.Version]+": "+l.Text)
	}
	want := []string{"restore by wes: " + lineA, "mcp by mo: " + lineB, "seed by ci-acme-e2e: " + lineC}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("blame:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	chain := []string{"agent by ana", "mcp by mo", "seed by ci-acme-e2e", "agent by ana", "restore by wes"}
	t.Run("stock Claude Code", func(t *testing.T) {
		claudeWritesLine(t, srv, lineA+"\n"+lineB+"\n"+lineC+"\n")
		chain = append(chain, "mcp by claude-e2e")
	})
	t.Run("TypeScript SDK", func(t *testing.T) {
		tsWritesLine(t, srv)
		chain = append(chain, "mcp by ts-e2e")
	})
	auditNamesEach(t, srv, chain)
}

// tsWritesLine has a client of the TypeScript MCP SDK, with a token of
// ts-e2e, call write_memory with a topic and its index line; the history
// and the blame name it. This release of the SDK sends its clientInfo only
// in initialize, which a stateless /mcp never sees again, so the client
// is its User-Agent: Node's fetch says "node" (docs/audit.md).
func tsWritesLine(t *testing.T, srv *authServer) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	prefix, err := realclient.NPMInstall(ctx, tsSDK)
	prefix = realclient.ForTest(t, prefix, err)
	const line = "- [Oncall](oncall.md) — who answers"
	before := srv.entries(repo)["MEMORY.md"]
	res := callTS(t, prefix, srv.url(), srv.token(t, "ts-e2e", repo+":write"), map[string]any{"name": "write_memory",
		"arguments": map[string]any{"repo": repo, "key": "oncall.md", "content": "# oncall\n", "index_line": line}})
	if res[0].IsError {
		t.Fatalf("write_memory: %+v", res[0])
	}
	if got := srv.entries(repo)["MEMORY.md"]; got != before+line+"\n" {
		t.Fatalf("MEMORY.md after the write:\n%s", got)
	}
	h, err := srv.api.History(ctx, repo, "MEMORY.md", client.HistoryOptions{})
	if err != nil || len(h.Revisions) == 0 {
		t.Fatalf("history = %+v, %v", h, err)
	}
	if p := h.Revisions[0].Provenance; p == nil || p.Subject != "ts-e2e" || p.Surface != "mcp" || p.Client != "node" {
		t.Errorf("the TypeScript SDK's version: provenance %+v; want ts-e2e through mcp as node", p)
	}
	b, err := srv.api.Blame(ctx, repo, "MEMORY.md", 0)
	if err != nil || len(b.Lines) == 0 || b.Lines[len(b.Lines)-1].Text != line || b.Lines[len(b.Lines)-1].Version != h.Revisions[0].Version {
		t.Errorf("blame = %+v, %v; want the last line from the SDK's version", b, err)
	}
}

// claudeWritesLine has the real Claude Code, through /mcp with a token of
// claude-e2e, call write_memory (as the stand-in model asks) with a topic
// and its index line, MEMORY.md holding index before; the history and the
// blame name the client.
func claudeWritesLine(t *testing.T, srv *authServer, index string) {
	const tool, line = "mcp__teammem__write_memory", "- [Release](release.md) — how we release"
	cc := realclient.ClaudeCodeForTest(t, realclient.ClaudeCodeNative)
	input, _ := json.Marshal(map[string]any{"repo": repo, "key": "release.md", "content": "# release\n", "index_line": line})
	model := realclient.NewRecorder(t, toolUseModel(tool, string(input)))
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"teammem": map[string]any{
		"type": "http", "url": srv.url() + "/mcp", "headers": map[string]string{"Authorization": "Bearer " + srv.token(t, "claude-e2e", repo+":write")}}}})
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfgFile, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	res := cc.Print(t, realclient.Session{Dir: dir, BaseURL: model.URL(),
		Args: []string{"--mcp-config", cfgFile, "--strict-mcp-config", "--allowedTools", tool}, Env: []string{"ENABLE_TOOL_SEARCH=false"}},
		"Remember how we release.")
	if res.Err != nil {
		t.Fatalf("claude -p: %v\nstdout:\n%s\nstderr:\n%s", res.Err, res.Stdout, res.Stderr)
	}
	proctest.WaitFor(t, "Claude Code's line on the server", func() bool { return srv.entries(repo)["MEMORY.md"] == index+line+"\n" })
	h, err := srv.api.History(context.Background(), repo, "MEMORY.md", client.HistoryOptions{})
	if err != nil || len(h.Revisions) == 0 {
		t.Fatalf("history = %+v, %v", h, err)
	}
	if p := h.Revisions[0].Provenance; p == nil || p.Subject != "claude-e2e" || p.Surface != "mcp" || !strings.Contains(strings.ToLower(p.Client), "claude") {
		t.Errorf("Claude Code's version: provenance %+v; want claude-e2e through mcp, its client named", p)
	}
	b, err := srv.api.Blame(context.Background(), repo, "MEMORY.md", 0)
	if err != nil || len(b.Lines) != 4 {
		t.Fatalf("blame = %+v, %v; want 4 lines", b, err)
	}
	var by string
	for _, r := range b.Revisions {
		if r.Version == b.Lines[3].Version {
			by = r.Provenance.Subject + " " + r.Provenance.Client
		}
	}
	if !strings.HasPrefix(by, "claude-e2e ") {
		t.Errorf("blame names %q for Claude Code's line", by)
	}
}

// auditNamesEach checks, with the real teammem-server beside the running
// server, that the repository's audit chain holds one write record per
// version, whose actors are want in order, and that the log verifies.
func auditNamesEach(t *testing.T, srv *authServer, want []string) {
	t.Helper()
	run := func(args ...string) string {
		cmd := proctest.Command(t, serverBin, append(append(args, "--data-dir", srv.dataDir), srv.storeFlags...)...)
		cmd.Env = cleanEnv()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("teammem-server %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(run("audit", "export", "--repo", repo)), "\n") {
		var e struct {
			Record struct {
				Action string
				By     struct{ Subject, Surface string }
			}
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil || e.Record.Action != "write" {
			t.Fatalf("audit export line %s: %v; want a write", line, err)
		}
		got = append(got, e.Record.By.Surface+" by "+e.Record.By.Subject)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the audit chain of %s names:\n%s\nwant:\n%s", repo, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if out := run("audit", "verify"); !strings.Contains(out, "the audit log verifies") {
		t.Errorf("audit verify:\n%s", out)
	}
}

// uiRestore signs in to the web UI with token, as a browser would with
// forms, and restores the content key had at version.
func uiRestore(t *testing.T, srv *authServer, token, key string, version int) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar}
	post := func(path string, form url.Values) string {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.url()+path, strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("User-Agent", "teammem-e2e-browser/1")
		return send(t, c, req)
	}
	post("/ui/login", url.Values{"token": {token}})
	confirm := url.Values{"key": {key}, "version": {strconv.Itoa(version)}}
	req, err := http.NewRequest(http.MethodGet, srv.url()+"/ui/r/"+repo+"/~restore?"+confirm.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	page := send(t, c, req)
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	base := regexp.MustCompile(`name="base" value="([^"]+)"`).FindStringSubmatch(page)
	if csrf == nil || base == nil {
		t.Fatalf("the restore page has no form to confirm it:\n%s", page)
	}
	done := post("/ui/r/"+repo+"/~restore", url.Values{"csrf": {csrf[1]}, "key": {key}, "version": {strconv.Itoa(version)},
		"base": {base[1]}})
	if !strings.Contains(done, "Restored") {
		t.Fatalf("the restore did not say it restored:\n%s", done)
	}
}

// send sends req and returns the body of a 200 answer (after redirects).
func send(t *testing.T, c *http.Client, req *http.Request) string {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %v\n%s", req.Method, req.URL.Path, resp.StatusCode, err, body)
	}
	return string(body)
}
