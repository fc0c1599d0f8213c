package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/teammem/teammem/api"
)

// TestTokenCreateNeverCreatesKey: pointed at a data directory without a
// signing key, token create mints nothing, creates nothing and exits 1
// naming the path it looked at (a fresh key would sign a token the server
// rejects).
func TestTokenCreateNeverCreatesKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wrong")
	var out, errb bytes.Buffer
	e := env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	err := run(context.Background(), []string{"token", "create", "--data-dir", dir, "--subject", "ci", "--grant", "acme/*:write"}, e)
	if err == nil {
		t.Fatalf("token create without a key succeeded, printed %q", out.String())
	}
	if code := exitCode(&errb, err); code != 1 {
		t.Errorf("exit code = %d, want 1", code)
	}
	want := filepath.Join(dir, "signing.key")
	if !strings.Contains(errb.String(), want) {
		t.Errorf("the error does not name %s: %q", want, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", out.String())
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("token create created %s (stat: %v)", dir, err)
	}
}

// TestServePrintsDataDir: serve resolves the data directory once and logs
// its absolute path.
func TestServePrintsDataDir(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	_, logs := startServer(t, "rel/data")
	want := filepath.Join(dir, "rel", "data")
	if !strings.Contains(logs.String(), "data directory") || !strings.Contains(logs.String(), want) {
		t.Errorf("serve did not log the resolved data directory %s:\n%s", want, logs.String())
	}
}

// TestRestartKeepsKeyAndToken: a second start writes neither file.
func TestRestartKeepsKeyAndToken(t *testing.T) {
	dir := t.TempDir()
	_, _, stop := startServerStop(t, dir)
	stop()
	before := snapshotFiles(t, dir, "signing.key", "admin.token")
	_, _, stop = startServerStop(t, dir)
	stop()
	if after := snapshotFiles(t, dir, "signing.key", "admin.token"); after != before {
		t.Errorf("a restart rewrote the key or the token:\nbefore %s\nafter  %s", before, after)
	}
}

// TestStartOnFullDisk starts the server on a data directory whose file
// system is full: it starts, serves reads, and answers writes 503.
func TestStartOnFullDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	url, _, stop := startServerStop(t, dir)
	admin := adminToken(t, dir)
	if code, body := request(t, http.MethodPut, url+api.PathTeamMemory+"?repo=acme/api", admin, `{"entries":{"a.md":"kept"}}`); code != 200 {
		t.Fatalf("PUT before the disk filled = %d %s", code, body)
	}
	stop()
	fill(t, filepath.Join(dir, "filler"))

	url, _ = startServer(t, dir)
	if code, body := request(t, http.MethodGet, url+api.PathTeamMemory+"?repo=acme/api", admin, ""); code != 200 || !strings.Contains(body, "kept") {
		t.Errorf("GET on a full disk = %d %s", code, body)
	}
	big := strings.Repeat("x", 200_000)
	if code, body := request(t, http.MethodPut, url+api.PathTeamMemory+"?repo=acme/api", admin, `{"entries":{"b.md":"`+big+`"}}`); code != 503 {
		t.Errorf("PUT on a full disk = %d %.200s, want 503", code, body)
	}
}

// fill writes path until the file system reports it is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill: %v", err)
			}
			break
		}
	}
	for _, n := range []int{4096, 512, 1} { // the last blocks too
		for {
			if _, err := f.Write(buf[:n]); err != nil {
				break
			}
		}
	}
}

// adminToken reads dir's admin.token.
func adminToken(t *testing.T, dir string) string {
	t.Helper()
	tok, err := os.ReadFile(filepath.Join(dir, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(tok))
}

// snapshotFiles describes the files' inode, size and modification time.
func snapshotFiles(t *testing.T, dir string, names ...string) string {
	t.Helper()
	var b strings.Builder
	for _, n := range names {
		fi, err := os.Stat(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s:%d/%d/%s ", n, fi.Sys().(*syscall.Stat_t).Ino, fi.Size(), fi.ModTime())
	}
	return b.String()
}
