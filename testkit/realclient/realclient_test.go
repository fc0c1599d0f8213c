package realclient

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeCodeReadsCheckoutMemory runs the native release once in a
// checkout whose CLAUDE.md holds a marker: the run ends well, prints the
// stand-in's reply, and the request it sent holds the marker (so the
// harness sees what the client sends the model). The e2e tests run both
// pinned releases.
func TestClaudeCodeReadsCheckoutMemory(t *testing.T) {
	for _, v := range []string{ClaudeCodeNative} {
		t.Run(v, func(t *testing.T) {
			c := ClaudeCodeForTest(t, v)
			api := MessagesAPI(t, "pong from the stand-in")
			dir := t.TempDir()
			os.Mkdir(filepath.Join(dir, ".git"), 0o755)
			os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("The marker is quince-4417.\n"), 0o644)
			res := c.Print(t, Session{Dir: dir, BaseURL: api.URL()}, "hi")
			if res.Err != nil || !strings.Contains(res.Stdout, "pong from the stand-in") {
				t.Fatalf("claude -p: %v\nstdout: %s\nstderr: %s", res.Err, res.Stdout, res.Stderr)
			}
			if !api.Sent("quince-4417") {
				t.Errorf("no request held the CLAUDE.md marker; requests: %d", len(api.Requests()))
			}
		})
	}
}

// TestMessagesAPI checks the stand-in without a client: a streamed and a
// plain answer, the error envelope for anything else, and the record.
func TestMessagesAPI(t *testing.T) {
	api := MessagesAPI(t, "hello")
	post := func(path, body string) (int, string) {
		resp, err := http.Post(api.URL()+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post("/v1/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":"secret-1"}]}`); code != 200 ||
		!strings.Contains(body, "event: message_start") || !strings.Contains(body, `"text":"hello"`) || !strings.HasSuffix(body, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n") {
		t.Errorf("stream: %d %s", code, body)
	}
	if code, body := post("/v1/messages", `{"model":"m"}`); code != 200 || !strings.Contains(body, `"stop_reason":"end_turn"`) {
		t.Errorf("plain: %d %s", code, body)
	}
	if code, body := post("/v1/other", `{}`); code != 404 || !strings.Contains(body, `"not_found_error"`) {
		t.Errorf("other: %d %s", code, body)
	}
	if !api.Sent("secret-1") || api.Sent("secret-2") || len(api.Requests()) != 3 {
		t.Errorf("record: %d requests", len(api.Requests()))
	}
	api.Reset()
	if api.Sent("secret-1") {
		t.Error("Reset kept the requests")
	}
}

func TestNPMInstallNeedsAnExactVersion(t *testing.T) {
	t.Setenv(EnvCache, t.TempDir())
	for _, spec := range []string{"@anthropic-ai/claude-code", "@anthropic-ai/claude-code@latest", "left-pad@^1.0.0", "x@1.2.3 --global", "../x@1.0.0"} {
		if _, err := NPMInstall(context.Background(), spec); err == nil || !strings.Contains(err.Error(), "exact version") {
			t.Errorf("NPMInstall(%q) = %v; want a refusal", spec, err)
		}
	}
}

// TestCodexReadsAgentsMd runs Codex CLI once in a checkout whose AGENTS.md
// holds a marker: the run prints the stand-in's reply and the first
// request holds the marker.
func TestCodexReadsAgentsMd(t *testing.T) {
	c := CodexForTest(t, CodexVersion)
	api := ResponsesAPI(t, "pong from the stand-in")
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("The marker is quince-4417.\n"), 0o644)
	res := c.Exec(t, Session{Dir: dir, BaseURL: api.URL()}, "say hi")
	if res.Err != nil || !strings.Contains(res.Stdout, "pong from the stand-in") {
		t.Fatalf("codex exec: %v\nstdout: %s\nstderr: %s", res.Err, res.Stdout, res.Stderr)
	}
	if !api.Sent("quince-4417") {
		t.Errorf("no request held the AGENTS.md marker; requests: %d", len(api.Requests()))
	}
}

// TestGeminiCLIReadsGeminiMd runs Gemini CLI once in a checkout whose
// GEMINI.md holds a marker: the run prints the stand-in's reply and the
// first request holds the marker.
func TestGeminiCLIReadsGeminiMd(t *testing.T) {
	c := GeminiCLIForTest(t, GeminiCLIVersion)
	api := GeminiAPI(t, "pong from the stand-in")
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, "GEMINI.md"), []byte("The marker is quince-4417.\n"), 0o644)
	res := c.Print(t, Session{Dir: dir, BaseURL: api.URL()}, "say hi")
	if res.Err != nil || !strings.Contains(res.Stdout, "pong from the stand-in") {
		t.Fatalf("gemini -p: %v\nstdout: %s\nstderr: %s", res.Err, res.Stdout, res.Stderr)
	}
	if !api.Sent("quince-4417") {
		t.Errorf("no request held the GEMINI.md marker; requests: %d", len(api.Requests()))
	}
}
