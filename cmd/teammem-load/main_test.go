package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/testkit/loadgen"
	"github.com/teammem/teammem/testkit/loadgen/loadgentest"
	"github.com/teammem/teammem/testkit/proctest"
)

func noEnv(string) string { return "" }

func TestRunOneScenarioAsJSON(t *testing.T) {
	_, srv := loadgentest.New(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(loadgentest.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	args := []string{"-server", srv.URL, "-token-file", tokenFile, "-scenario", "put", "-c", "3", "-n", "50", "-entries", "7",
		"-server-pid", strconv.Itoa(os.Getpid()), "-json"}
	if code := exitCode(run(t.Context(), args, noEnv, &out, &errOut), &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var r loadgen.Result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v in %q", err, out.String())
	}
	got := []any{r.Scenario, r.Entries, r.Concurrency, r.Requests, len(r.Errors), r.RSSBytes > 0}
	if diff := cmp.Diff([]any{"put", 7, 3, 50, 0, true}, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

func TestRunAllPrintsOneLinePerCase(t *testing.T) {
	_, srv := loadgentest.New(t)
	env := func(k string) string {
		return map[string]string{"TEAMMEM_TOKEN": loadgentest.Token, "TEAMMEM_SERVER": srv.URL}[k]
	}
	var out, errOut bytes.Buffer
	err := run(t.Context(), []string{"-all", "-runs", "1", "-n", "8", "-c", "2"}, env, &out, &errOut)
	if err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(loadgen.Benchmarks) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(loadgen.Benchmarks), out.String())
	}
	if !strings.HasPrefix(lines[len(lines)-1], "cas") || !strings.Contains(lines[len(lines)-1], "lost 0") {
		t.Errorf("last line %q, want the cas case with lost 0", lines[len(lines)-1])
	}
}

func TestExitCodes(t *testing.T) {
	f, srv := loadgentest.New(t)
	f.Fail500Every = 2
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"unknown flag", []string{"-bogus"}, 2},
		{"stray argument", []string{"-token", "x", "extra"}, 2},
		{"help", []string{"-h"}, 0},
		{"no token", []string{"-server", srv.URL}, 1},
		{"unknown scenario", []string{"-token", "x", "-scenario", "nope"}, 1},
		{"failed requests", []string{"-server", srv.URL, "-token", loadgentest.Token, "-scenario", "hashes", "-n", "20", "-entries", "2"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if got := exitCode(run(t.Context(), tt.args, noEnv, &out, &errOut), &errOut); got != tt.want {
				t.Errorf("exit %d, want %d; stderr %s", got, tt.want, errOut.String())
			}
		})
	}
}

// TestServeFloorUntilCancelled: -serve-floor needs no token, answers on
// the address it prints and returns when its context ends.
func TestServeFloorUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	out := &proctest.Buffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-serve-floor", "127.0.0.1:0"}, noEnv, out, io.Discard) }()
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if f := strings.Fields(out.String()); len(f) > 4 {
			addr = f[4]
		}
	}
	if addr == "" {
		cancel()
		t.Fatalf("no address printed: %q", out.String())
	}
	r, err := loadgen.Run(t.Context(), loadgen.Config{Server: "http://" + addr, Token: "x", Scenario: loadgen.Get304, Concurrency: 2, Requests: 20})
	if err != nil || !r.OK() {
		t.Errorf("get-304 against the floor: %v %v", err, r.Errors)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the floor server did not stop")
	}
}
