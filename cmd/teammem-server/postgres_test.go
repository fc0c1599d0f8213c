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
	"github.com/teammem/teammem/testkit/pgtest"
)

// TestServeOnPostgres runs migrate and serve against a real Postgres: without
// --migrate a fresh database is refused; `migrate up` then lets it start.
func TestServeOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	dir := t.TempDir()
	quiet := env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--database-url", url}, quiet)
	if err == nil || !strings.Contains(err.Error(), "migrate") {
		t.Fatalf("serve on an unmigrated database = %v; want a refusal naming migrate", err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"migrate", "up", "--database-url", url}, env{stdout: &out, stderr: io.Discard, getenv: quiet.getenv}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "schema version ") {
		t.Errorf("migrate up printed %q", out.String())
	}
	base, _ := startServer(t, dir, "--database-url", url)
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	admin := strings.TrimSpace(string(tok))
	if code, body := request(t, http.MethodPut, base+api.PathTeamMemory+"?repo=acme/pg", admin, `{"entries":{"a.md":"a"}}`); code != 200 {
		t.Fatalf("PUT on Postgres = %d %s", code, body)
	}
	if code, body := request(t, http.MethodGet, base+api.PathTeamMemory+"?repo=acme/pg", admin, ""); code != 200 || !strings.Contains(body, `"a.md"`) {
		t.Fatalf("GET on Postgres = %d %s", code, body)
	}
}

func TestHeaderLimit(t *testing.T) {
	base, _ := startServer(t, t.TempDir())
	req, _ := http.NewRequest(http.MethodGet, base+api.PathHealthz, nil)
	req.Header.Set("X-Big", strings.Repeat("x", 70<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("70 KiB of headers = %d, want 431", resp.StatusCode)
	}
}
