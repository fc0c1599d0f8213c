package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
)

// TestBackupRestore backs up the embedded store while the server runs and
// writes, restores the copy into a new data directory and reads the data
// back through a server started on it.
func TestBackupRestore(t *testing.T) {
	dir := t.TempDir()
	base, _, stop := startServerStop(t, dir)
	admin := adminToken(t, dir)
	put := func(body string) {
		if code, b := request(t, http.MethodPut, base+api.PathTeamMemory+"?repo=acme/bk", admin, body); code != 200 {
			t.Fatalf("PUT = %d %s", code, b)
		}
	}
	put(`{"entries":{"a.md":"first","b.md":"kept"}}`)
	put(`{"soft_delete_keys":["a.md"],"entries":{"c.md":"third"}}`)
	copyFile := filepath.Join(t.TempDir(), "teammem-backup.db")
	var out bytes.Buffer
	e := env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }}
	if err := run(context.Background(), []string{"backup", "--data-dir", dir, "--to", copyFile}, e); err != nil {
		t.Fatalf("backup while serving: %v", err)
	}
	if fi, err := os.Stat(copyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup file mode = %v, %v; want 0600 (it holds every memory and its history)", fi.Mode().Perm(), err)
	}
	// Read-only commands work beside the running server (its lock is not
	// taken); changing the schema does not.
	out.Reset()
	if err := run(context.Background(), []string{"migrate", "version", "--data-dir", dir}, e); err != nil || !strings.HasPrefix(out.String(), "schema version ") {
		t.Errorf("migrate version beside the server: %v, %q", err, out.String())
	}
	if err := run(context.Background(), []string{"migrate", "up", "--data-dir", dir}, e); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Errorf("migrate up beside the server = %v; want it refused as locked", err)
	}
	put(`{"entries":{"d.md":"after the backup"}}`) // the server still writes
	if err := run(context.Background(), []string{"backup", "--data-dir", dir, "--to", copyFile}, e); err == nil {
		t.Error("backup overwrote an existing file")
	}
	stop()

	restored := t.TempDir()
	data, err := os.ReadFile(copyFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(restored, embeddedDBName), data, 0o600); err != nil {
		t.Fatal(err)
	}
	base2, _ := startServer(t, restored)
	code, body := request(t, http.MethodGet, base2+api.PathTeamMemory+"?repo=acme/bk", adminToken(t, restored), "")
	if code != 200 {
		t.Fatalf("GET from the restored store = %d %s", code, body)
	}
	for _, want := range []string{`"b.md":"kept"`, `"c.md":"third"`, `"a.md":`, `"version":2`} {
		if !strings.Contains(body, want) {
			t.Errorf("restored body lacks %s: %s", want, body)
		}
	}
	if strings.Contains(body, "after the backup") {
		t.Errorf("the copy holds a write made after it")
	}
}
