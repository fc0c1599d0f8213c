package realclient

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// CodexVersion is the Codex CLI release the tests run.
const CodexVersion = "0.171.0"

// Codex is one installed release of OpenAI's Codex CLI: a native binary
// shipped in a platform package (@openai/codex@<version>-<os>-<arch>).
type Codex struct {
	Version string
	Bin     string
}

// InstallCodex installs this platform's package of Codex CLI at version
// (see NPMInstall) and finds its binary.
func InstallCodex(ctx context.Context, version string) (*Codex, error) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	platform := map[string]string{"linux": "linux", "darwin": "darwin"}[runtime.GOOS]
	if arch == "" || platform == "" {
		return nil, fmt.Errorf("codex %s: %w: no package for %s/%s", version, ErrUnavailable, runtime.GOOS, runtime.GOARCH)
	}
	prefix, err := NPMInstall(ctx, "@openai/codex@"+version+"-"+platform+"-"+arch)
	if err != nil {
		return nil, err
	}
	bins, _ := filepath.Glob(filepath.Join(prefix, "node_modules", "@openai", "codex", "vendor", "*", "bin", "codex"))
	if len(bins) != 1 {
		return nil, fmt.Errorf("codex %s: want one vendor/*/bin/codex in %s, found %q", version, prefix, bins)
	}
	return &Codex{Version: version, Bin: bins[0]}, nil
}

// CodexForTest installs Codex CLI at version for t, skipping or failing as
// ForTest does when npm cannot be reached.
func CodexForTest(t testing.TB, version string) *Codex {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := InstallCodex(ctx, version)
	return ForTest(t, c, err)
}

// Exec runs `codex exec --skip-git-repo-check prompt s.Args...` once in
// s.Dir: its own HOME and CODEX_HOME whose config.toml makes a model
// provider of s.BaseURL (a ResponsesAPI: base_url s.BaseURL/v1, wire_api
// "responses", the key in an environment variable of its own), nothing of
// the caller's environment but PATH.
func (c *Codex) Exec(t testing.TB, s Session, prompt string) Result {
	t.Helper()
	home := s.Home
	if home == "" {
		home = t.TempDir()
	}
	codexHome := filepath.Join(home, ".codex")
	config := fmt.Sprintf(`model = "gpt-realclient"
model_provider = "realclient"
check_for_update_on_startup = false

[model_providers.realclient]
name = "realclient"
base_url = %q
wire_api = "responses"
env_key = "REALCLIENT_API_KEY"
`, s.BaseURL+"/v1")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{c.Bin, "exec", "--skip-git-repo-check", prompt}, s.Args...)
	return run(t, "codex exec", args, s.Dir, append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"USER=realclient",
		"CODEX_HOME=" + codexHome,
		"REALCLIENT_API_KEY=realclient-test-key",
		"RUST_LOG=error",
		"TERM=dumb",
		"NO_COLOR=1",
	}, s.Env...))
}
