package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
)

// TestOperations: --access-log=false drops the per-request lines but a
// refused token is still logged with its reason and client address, never
// the token; /metrics carries the build, store and connection gauges;
// healthcheck exits 0 against the ready server and 1 where none listens.
func TestOperations(t *testing.T) {
	dir := t.TempDir()
	base, logs := startServer(t, dir, "--access-log=false", "--max-connections", "50")
	admin := adminToken(t, dir)
	if code, body := request(t, http.MethodPut, base+api.PathTeamMemory+"?repo=acme/ops", admin, `{"entries":{"a.md":"hello","b.md":"world!"}}`); code != 200 {
		t.Fatalf("PUT = %d %s", code, body)
	}
	bad := admin[:len(admin)-4] + "AAAA" // a forged signature
	if code, _ := request(t, http.MethodGet, base+api.PathTeamMemory+"?repo=acme/ops", bad, ""); code != 401 {
		t.Fatalf("GET with a forged token = %d, want 401", code)
	}
	other := issueToken(t, dir, "bob", "other/*:read")
	if code, _ := request(t, http.MethodGet, base+api.PathTeamMemory+"?repo=acme/ops", other, ""); code != 403 {
		t.Fatalf("GET without a grant = %d, want 403", code)
	}
	out := logs.String()
	if strings.Contains(out, "msg=request ") {
		t.Errorf("--access-log=false still logged request lines:\n%s", out)
	}
	for _, want := range []string{"status=401", "signature", "status=403", "subject=bob", "client=127.0.0.1:"} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal log lines lack %q:\n%s", want, out)
		}
	}
	for _, tok := range []string{admin, bad, other, bad[strings.LastIndex(bad, "."):]} {
		if strings.Contains(out, tok) {
			t.Errorf("a token (or its signature) was logged")
		}
	}

	_, metrics := request(t, http.MethodGet, base+api.PathMetrics, "", "")
	for _, want := range []string{
		`teammem_build_info{goversion="go`, `store="sqlite"`,
		`teammem_store_repos{store="sqlite"} 1`, `teammem_store_live_entries{store="sqlite"} 2`,
		`teammem_store_live_bytes{store="sqlite"} 11`, "teammem_http_connections_open ",
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	var stdout bytes.Buffer
	e := env{stdout: &stdout, stderr: io.Discard, getenv: func(string) string { return "" }}
	if err := run(context.Background(), []string{"healthcheck", "--addr", strings.TrimPrefix(base, "http://")}, e); err != nil {
		t.Errorf("healthcheck against the ready server: %v", err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	var errb bytes.Buffer
	err := run(context.Background(), []string{"healthcheck", "--addr", closed, "--timeout", "1s"}, e)
	if code := exitCode(&errb, err); code != 1 {
		t.Errorf("healthcheck where nothing listens: exit %d, want 1", code)
	}
}

// issueToken runs token create against dir's key.
func issueToken(t *testing.T, dir, subject, grant string) string {
	t.Helper()
	var out bytes.Buffer
	e := env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }}
	if err := run(context.Background(), []string{"token", "create", "--data-dir", dir, "--subject", subject, "--grant", grant}, e); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out.String())
}

func TestProbeAddr(t *testing.T) {
	for in, want := range map[string]string{
		":8080": "127.0.0.1:8080", "0.0.0.0:80": "127.0.0.1:80", "[::]:80": "[::1]:80",
		"10.0.0.5:8080": "10.0.0.5:8080", "localhost:1": "localhost:1",
	} {
		if got, err := probeAddr(in); err != nil || got != want {
			t.Errorf("probeAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
