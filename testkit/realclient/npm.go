package realclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// EnvCache names the variable that overrides CacheDir.
const EnvCache = "TEAMMEM_REALCLIENT_CACHE"

// ErrUnavailable is wrapped by the errors of NPMInstall when npm is not
// installed or the registry cannot be reached: the client cannot be had
// here, which is not a failure of the code under test.
var ErrUnavailable = errors.New("npm client unavailable")

// CacheDir is where NPMInstall keeps installed packages: $EnvCache, else
// $XDG_CACHE_HOME/teammem-realclient, else the user cache folder's
// teammem-realclient, else one below the temporary folder. It is outside
// the repository, so a clean checkout (CI) installs once per machine.
func CacheDir() string {
	if d := os.Getenv(EnvCache); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "teammem-realclient")
	}
	return filepath.Join(os.TempDir(), "teammem-realclient")
}

// specRe is what NPMInstall accepts: a package name, scoped or not, at an
// exact version (no ranges or tags: a test must pin what it runs).
var specRe = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*@[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// NPMInstall installs one npm package at an exact version, spec being
// "name@1.2.3", with its dependencies, into a folder of its own below
// CacheDir, and returns that folder (its node_modules holds the package).
// A package installed before is reused. The install goes to a temporary
// folder renamed into place when complete, so concurrent test processes
// never see half an install. An error wraps ErrUnavailable when npm is
// missing or the registry did not answer.
func NPMInstall(ctx context.Context, spec string) (string, error) {
	if !specRe.MatchString(spec) {
		return "", fmt.Errorf("npm install %q: not a package at an exact version", spec)
	}
	final := filepath.Join(CacheDir(), filepath.FromSlash(spec))
	if _, err := os.Stat(filepath.Join(final, "node_modules")); err == nil {
		return final, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm install %s: %w: npm is not installed", spec, ErrUnavailable)
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(final), ".install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", tmp, "--no-audit", "--no-fund",
		"--no-save", "--loglevel", "error", spec)
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if unreachable(out.Bytes()) || ctx.Err() != nil {
			return "", fmt.Errorf("npm install %s: %w: %v\n%s", spec, ErrUnavailable, err, out.Bytes())
		}
		return "", fmt.Errorf("npm install %s: %v\n%s", spec, err, out.Bytes())
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, statErr := os.Stat(filepath.Join(final, "node_modules")); statErr == nil {
			return final, nil // another process finished first
		}
		return "", err
	}
	return final, nil
}

// unreachable reports whether npm's output says the registry could not
// be reached.
func unreachable(out []byte) bool {
	for _, code := range []string{"ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH", "EHOSTUNREACH", "network"} {
		if bytes.Contains(out, []byte(code)) {
			return true
		}
	}
	return false
}

// ForTest returns v, or ends the test when err is not nil: skipped with
// the reason when the client is unavailable (ErrUnavailable) and $CI is
// not set, failed otherwise.
func ForTest[T any](t testing.TB, v T, err error) T {
	t.Helper()
	if err == nil {
		return v
	}
	if errors.Is(err, ErrUnavailable) && os.Getenv("CI") == "" {
		t.Skipf("real client not available (set CI to make this a failure): %v", err)
	}
	t.Fatal(err)
	return v
}
