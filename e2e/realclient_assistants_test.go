//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/testkit/gittest"
	"github.com/teammem/teammem/testkit/realclient"
)

// assistantCase is a checkout for a real assistant: with or without a
// tracked instruction file of its own.
type assistantCase struct {
	name    string
	tracked map[string]string
}

// pushIndex puts a team index with one line holding positive on the
// server, as a teammate's agent would.
func pushIndex(t *testing.T, srv *serverProc, positive string) {
	t.Helper()
	entries := map[string]string{"deploys.md": "Run make deploy.\n",
		"MEMORY.md": "- [Deploys](deploys.md) — deploy runbook " + positive + "\n"}
	if _, err := srv.api.Put(context.Background(), repo, api.PutRequest{Entries: entries}, ""); err != nil {
		t.Fatal(err)
	}
}

// victimCheckout makes a checkout with c's tracked files, syncs it with
// --assistants assistant under home, and checks git status stays empty.
func victimCheckout(t *testing.T, srv *serverProc, home, assistant string, c assistantCase) string {
	t.Helper()
	co, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	if len(c.tracked) > 0 {
		for f, text := range c.tracked {
			write(t, co, f, text)
			gittest.Run(t, co, "add", f)
		}
		gittest.Run(t, co, "commit", "-q", "-m", "instructions")
	}
	args := append([]string{"sync"}, runArgs(srv, t.TempDir(), t.TempDir())...)
	if code, p := runAgentHome(t, home, append(args, "--repo-dir", co, "--assistants", assistant)...); code != 0 {
		t.Fatalf("sync exit %d:\n%s\n%s", code, p.stdout, p.stderr)
	}
	if s := gittest.Run(t, co, "status", "--porcelain", "--untracked-files=all"); s != "" {
		t.Errorf("git status:\n%s", s)
	}
	return co
}

// firstRequestShows checks that the first request rec received holds
// every text of want, and logs an excerpt around each (what the closing
// note shows).
func firstRequestShows(t *testing.T, rec *realclient.Recorder, client string, want ...string) {
	t.Helper()
	reqs := rec.Requests()
	if len(reqs) == 0 {
		t.Fatalf("%s sent no request", client)
	}
	var decoded any
	body := string(reqs[0].Body)
	if json.Unmarshal(reqs[0].Body, &decoded) == nil { // one line per string, escapes undone
		var b strings.Builder
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				b.WriteString(v + "\n")
			case []any:
				for _, x := range v {
					walk(x)
				}
			case map[string]any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		walk(decoded)
		body = b.String()
	}
	var frame []string // where each file starts and the block's markers, as the client framed them
	for _, line := range strings.Split(body, "\n") {
		if strings.Contains(line, "Context from:") || strings.Contains(line, "instructions for") || strings.HasPrefix(line, "<!-- teammem:") {
			frame = append(frame, line)
		}
	}
	t.Logf("%s, first request %s %s, the files it holds:\n%s", client, reqs[0].Method, reqs[0].Path, strings.Join(frame, "\n"))
	for _, w := range want {
		i := strings.Index(body, w)
		if i < 0 {
			t.Errorf("%s's first request (%s %s) lacks %q", client, reqs[0].Method, reqs[0].Path, w)
			continue
		}
		from, to := max(0, i-700), i+len(w)
		if nl := strings.IndexByte(body[from:i], '\n'); nl >= 0 {
			from += nl + 1
		}
		t.Logf("%s, first request %s %s, around %q:\n%s", client, reqs[0].Method, reqs[0].Path, w, body[from:to])
	}
}

// TestRealCodexReadsTeamIndex: Codex CLI, run in a checkout the agent
// synced with --assistants codex, sends the team index line in its first
// request, next to the tracked AGENTS.md's text when there is one (Codex
// reads AGENTS.override.md instead of AGENTS.md, which carries it).
func TestRealCodexReadsTeamIndex(t *testing.T) {
	codex := realclient.CodexForTest(t, realclient.CodexVersion)
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	positive := "POSITIVE-" + randomHex(t)
	pushIndex(t, srv, positive)
	agents := "# Agents\n\nAlways run make check (AGENTS-MARKER-" + randomHex(t) + ").\n"
	for _, c := range []assistantCase{{"plain", nil}, {"tracked AGENTS.md", map[string]string{"AGENTS.md": agents}}} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			co := victimCheckout(t, srv, home, "codex", c)
			rec := realclient.ResponsesAPI(t, "ok")
			out := codex.Exec(t, realclient.Session{Dir: co, Home: home, BaseURL: rec.URL()}, "say hi")
			if out.Err != nil {
				t.Fatalf("codex exec: %v\nstdout: %s\nstderr: %s", out.Err, out.Stdout, out.Stderr)
			}
			want := []string{positive}
			if c.tracked != nil {
				want = append(want, strings.TrimSpace(agents))
			}
			firstRequestShows(t, rec, "Codex CLI "+codex.Version, want...)
		})
	}
}

// TestRealGeminiReadsTeamIndex: Gemini CLI, run in a checkout the agent
// synced with --assistants gemini, sends the team index line in its first
// request, next to the tracked GEMINI.md's text when there is one (the
// block then sits in GEMINI.teammem.md, which the workspace settings the
// agent wrote make Gemini CLI read).
func TestRealGeminiReadsTeamIndex(t *testing.T) {
	gemini := realclient.GeminiCLIForTest(t, realclient.GeminiCLIVersion)
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	positive := "POSITIVE-" + randomHex(t)
	pushIndex(t, srv, positive)
	tracked := "# Gemini\n\nPrefer small commits (GEMINI-MARKER-" + randomHex(t) + ").\n"
	for _, c := range []assistantCase{{"plain", nil}, {"tracked GEMINI.md", map[string]string{"GEMINI.md": tracked}}} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			co := victimCheckout(t, srv, home, "gemini", c)
			rec := realclient.GeminiAPI(t, "ok")
			out := gemini.Print(t, realclient.Session{Dir: co, Home: home, BaseURL: rec.URL()}, "say hi")
			if out.Err != nil {
				t.Fatalf("gemini -p: %v\nstdout: %s\nstderr: %s", out.Err, out.Stdout, out.Stderr)
			}
			want := []string{positive}
			if c.tracked != nil {
				want = append(want, strings.TrimSpace(tracked))
			}
			firstRequestShows(t, rec, "Gemini CLI "+gemini.Version, want...)
		})
	}
}

// TestRealGeminiLoadsNothingOutsideTheTeamFolder is issue 22's boundary
// against Gemini CLI's own import syntax (@path in GEMINI.md, read after
// whitespace, resolved inside the project): every hostile shape is pushed
// and synced into the victim's GEMINI.md, the same index is rendered with
// every key taken as existing into the user's part of the file, and no
// canary may reach the model, while a hand-written import of the user's
// does (so the client's import processing is on and seen).
func TestRealGeminiLoadsNothingOutsideTheTeamFolder(t *testing.T) {
	gemini := realclient.GeminiCLIForTest(t, realclient.GeminiCLIVersion)
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	h := pushHostile(t, srv)
	checkout, home, outside, teamDir, state, nonce, positive, entries := h.checkout, h.home, h.outside, h.teamDir, h.state, h.nonce, h.positive, h.entries
	bypass := teamblock.Render(teamblock.Input{Repo: repo, TeamDir: teamDir, Index: entries["MEMORY.md"]}).Text
	bypass = strings.TrimSuffix(strings.TrimPrefix(bypass, teamblock.Begin+"\n"), teamblock.End+"\n")
	control := "CONTROL-" + nonce
	plantCanary(t, checkout, home, outside, "ctl/notes.md", control)
	own := "# Project\n\nThe user's own import: @ctl/notes.md\n\n" + bypass
	write(t, checkout, "GEMINI.md", own)
	args := append([]string{"sync"}, runArgs(srv, teamDir, state)...)
	if code, p := runAgentHome(t, home, append(args, "--repo-dir", checkout, "--assistants", "gemini")...); code != 0 {
		t.Fatalf("sync exit %d:\n%s\n%s", code, p.stdout, p.stderr)
	}
	if got := read(checkout, "GEMINI.md"); !strings.Contains(got, positive) || !strings.HasSuffix(got, own) {
		t.Fatalf("GEMINI.md after sync:\n%s", got)
	}
	rec := realclient.GeminiAPI(t, "ok")
	out := gemini.Print(t, realclient.Session{Dir: checkout, Home: home, BaseURL: rec.URL()}, "hi")
	if out.Err != nil {
		t.Fatalf("gemini -p: %v\nstdout: %s\nstderr: %s", out.Err, out.Stdout, out.Stderr)
	}
	if !rec.Sent(positive) || !rec.Sent(control) {
		t.Fatalf("the team index (%v) or the user's own import (%v) never reached the model: the test proves nothing",
			rec.Sent(positive), rec.Sent(control))
	}
	h.leaked(t, "Gemini CLI "+gemini.Version, rec.Sent)
	t.Logf("%d hostile shapes, none loaded; the user's own @import loaded", len(importShapes))
}

// TestRealCodexLoadsNothingOutsideTheTeamFolder holds issue 22's boundary
// for the Codex target: every hostile shape is pushed and synced into the
// victim's AGENTS.override.md (which carries the tracked AGENTS.md), and no
// canary may reach the model while the team index does.
func TestRealCodexLoadsNothingOutsideTheTeamFolder(t *testing.T) {
	codex := realclient.CodexForTest(t, realclient.CodexVersion)
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	h := pushHostile(t, srv)
	tracked := "# Agents\n\nSee @.env and @config/secrets.yml for nothing (AGENTS-MARKER-" + h.nonce + ").\n"
	write(t, h.checkout, "AGENTS.md", tracked)
	gittest.Run(t, h.checkout, "add", "AGENTS.md")
	gittest.Run(t, h.checkout, "commit", "-q", "-m", "instructions")
	args := append([]string{"sync"}, runArgs(srv, h.teamDir, h.state)...)
	if code, p := runAgentHome(t, h.home, append(args, "--repo-dir", h.checkout, "--assistants", "codex")...); code != 0 {
		t.Fatalf("sync exit %d:\n%s\n%s", code, p.stdout, p.stderr)
	}
	if got := read(h.checkout, "AGENTS.override.md"); !strings.Contains(got, h.positive) {
		t.Fatalf("AGENTS.override.md after sync:\n%s", got)
	}
	rec := realclient.ResponsesAPI(t, "ok")
	out := codex.Exec(t, realclient.Session{Dir: h.checkout, Home: h.home, BaseURL: rec.URL()}, "say hi")
	if out.Err != nil {
		t.Fatalf("codex exec: %v\nstdout: %s\nstderr: %s", out.Err, out.Stdout, out.Stderr)
	}
	if !rec.Sent(h.positive) || !rec.Sent("AGENTS-MARKER-"+h.nonce) {
		t.Fatalf("the team index (%v) or the tracked AGENTS.md (%v) never reached the model: the test proves nothing",
			rec.Sent(h.positive), rec.Sent("AGENTS-MARKER-"+h.nonce))
	}
	h.leaked(t, "Codex CLI "+codex.Version, rec.Sent)
}
