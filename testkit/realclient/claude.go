package realclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/teammem/teammem/testkit/proctest"
)

// Claude Code releases the tests run: the last that ships cli.js for
// node, and a current one that ships a native binary.
const (
	ClaudeCodeNode   = "2.1.112"
	ClaudeCodeNative = "2.1.332"
)

// ClaudeCode is one installed release of Claude Code.
type ClaudeCode struct {
	// Version is the release, such as "2.1.112".
	Version string
	// Argv runs it: node and cli.js, or the native binary.
	Argv []string
}

// InstallClaudeCode installs @anthropic-ai/claude-code at version (see
// NPMInstall) and finds how to run it: the package's cli.js with node
// for the releases that ship one, else the native binary of this
// platform's package (@anthropic-ai/claude-code-<os>-<arch>).
func InstallClaudeCode(ctx context.Context, version string) (*ClaudeCode, error) {
	prefix, err := NPMInstall(ctx, "@anthropic-ai/claude-code@"+version)
	if err != nil {
		return nil, err
	}
	modules := filepath.Join(prefix, "node_modules", "@anthropic-ai")
	if cli := filepath.Join(modules, "claude-code", "cli.js"); exists(cli) {
		node, err := exec.LookPath("node")
		if err != nil {
			return nil, fmt.Errorf("claude code %s ships cli.js: %w: node is not installed", version, ErrUnavailable)
		}
		return &ClaudeCode{Version: version, Argv: []string{node, cli}}, nil
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	native := filepath.Join(modules, "claude-code-"+runtime.GOOS+"-"+arch, "claude")
	if !exists(native) {
		return nil, fmt.Errorf("claude code %s: neither cli.js nor %s was installed", version, native)
	}
	return &ClaudeCode{Version: version, Argv: []string{native}}, nil
}

// ClaudeCodeForTest installs Claude Code at version for t, skipping or
// failing as ForTest does when npm cannot be reached.
func ClaudeCodeForTest(t testing.TB, version string) *ClaudeCode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := InstallClaudeCode(ctx, version)
	return ForTest(t, c, err)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Session is one run of the client.
type Session struct {
	// Dir is the working directory: the checkout the session is in.
	Dir string
	// Home is the user's home for the run, created when missing; its
	// .claude folder is the configuration folder. Empty: a fresh one
	// below t.TempDir().
	Home string
	// BaseURL is the model API's address (ANTHROPIC_BASE_URL), such as a
	// MessagesAPI's URL.
	BaseURL string
	// Args go after -p and the prompt (for example --mcp-config FILE).
	Args []string
	// Env adds or overrides variables of the environment the client runs
	// with (NAME=value).
	Env []string
}

// Result is what a run printed and how it ended.
type Result struct {
	Stdout, Stderr string
	Err            error // the exit status, nil for 0
}

// APIKey is the key a session presents to its BaseURL.
const APIKey = "sk-ant-api03-realclient-test-key-0000000000000000000000000000000000000000000000000000000000AA"

// Print runs `claude -p prompt s.Args...` once, non-interactively: its own
// HOME and configuration folder (onboarding marked done, the key approved),
// ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL set, auto-update, telemetry,
// error reporting and other non-essential traffic off, and nothing of the
// caller's environment but PATH. The process runs in a group of its own
// that is ended with the test (proctest.Own) and is given two minutes.
func (c *ClaudeCode) Print(t testing.TB, s Session, prompt string) Result {
	t.Helper()
	home := s.Home
	if home == "" {
		home = t.TempDir()
	}
	if err := writeClaudeConfig(home, nil); err != nil {
		t.Fatal(err)
	}
	args := append([]string{c.Argv[0]}, c.Argv[1:]...)
	args = append(args, "-p", prompt)
	args = append(args, s.Args...)
	env := append(homeEnv(home),
		"ANTHROPIC_API_KEY="+APIKey,
		"ANTHROPIC_BASE_URL="+s.BaseURL,
		"DISABLE_TELEMETRY=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	return run(t, "claude -p", args, s.Dir, append(env, s.Env...))
}

// homeEnv is the environment every run starts from: PATH, and home as the
// user's home and configuration; auto-update and error reporting off, a
// plain terminal.
func homeEnv(home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"USER=realclient",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"TERM=dumb",
		"NO_COLOR=1",
	}
}

// run runs argv in dir with exactly env, in a process group of its own
// that is ended with the test (proctest.Own), for at most two minutes;
// what names the run in the timeout's error.
func run(t testing.TB, what string, argv []string, dir string, env []string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	proctest.Own(t, cmd)
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s did not end within two minutes: %w", what, ctx.Err())
	}
	return Result{Stdout: stdout.String(), Stderr: stderr.String(), Err: err}
}

// writeClaudeConfig writes the global configuration that lets a first run
// go without a prompt: onboarding done and the session's API key approved,
// in both places releases have read it from, with extra's members added.
func writeClaudeConfig(home string, extra map[string]any) error {
	key := APIKey[len(APIKey)-20:]
	m := map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string][]string{"approved": {key}, "rejected": {}},
		"autoUpdates":            false,
	}
	for k, v := range extra {
		m[k] = v
	}
	cfg, _ := json.Marshal(m)
	dir := filepath.Join(home, ".claude")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range []string{filepath.Join(home, ".claude.json"), filepath.Join(dir, ".claude.json")} {
		if err := os.WriteFile(p, cfg, 0o600); err != nil {
			return err
		}
	}
	return nil
}
