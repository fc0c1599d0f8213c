package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/internal/loadgen"
	"github.com/teammem/teammem/internal/loadgen/loadgentest"
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
