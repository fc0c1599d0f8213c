package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestAuthErrorsSayWhatToDo holds the auth failures to sentences a person
// can act on: no token names login; a refused token names the server and
// what it said, and never guesses "expired" when no token was sent.
func TestAuthErrorsSayWhatToDo(t *testing.T) {
	ts := newTestServer(t, true)
	env := agentEnv(t, ts, t.TempDir())
	env["TEAMMEM_JSON"] = ""
	tests := []struct {
		name, token string
		args        []string
		want        []string
		notWant     []string
	}{
		{"sync without a token", "", []string{"sync"},
			[]string{"wants a token and none was given", "teammem-agent login --server " + ts.url}, []string{"expired", "refused"}},
		{"log without a token", "", []string{"log"},
			[]string{"wants a token and none was given"}, []string{"expired"}},
		{"a token of another server", "not.a.token", []string{"sync"},
			[]string{"the server " + ts.url + " refused the token", "it said"}, nil},
		{"no grant", ts.token(t, "ana", time.Hour, "other/*:write"), []string{"sync"},
			[]string{"no grant for acme/api on " + ts.url, "acme/api:write"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env["TEAMMEM_TOKEN"] = tt.token
			r := cli(t, t.Context(), env, tt.args...)
			if r.code != 1 {
				t.Errorf("exit %d; want 1", r.code)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not say %q", r.stderr, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q says %q", r.stderr, w)
				}
			}
		})
	}
}

// TestLoginRefusedToken: a token on stdin that the server refuses is
// reported as refused (not as missing), and nothing is saved.
func TestLoginRefusedToken(t *testing.T) {
	ts := newTestServer(t, true)
	var out, errOut strings.Builder
	home := t.TempDir()
	e := &cliEnv{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader("not-a-token\n"), Cwd: home, Home: home,
		Getenv: func(string) string { return "" }}
	if code := exitCode(e, run(t.Context(), e, []string{"login", "--server", ts.url})); code != 1 {
		t.Errorf("exit %d", code)
	}
	if !strings.Contains(errOut.String(), "the server "+ts.url+" refused the token") {
		t.Errorf("stderr %q", errOut.String())
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("a refused login wrote %v", entries)
	}
}
