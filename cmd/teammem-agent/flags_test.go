package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCommonFlagsEnvTwins(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want commonFlags
	}{
		{"defaults", nil, nil, commonFlags{logLevel: "info"}},
		{"env only", nil,
			map[string]string{"TEAMMEM_SERVER": "http://s", "TEAMMEM_TOKEN": "t", "TEAMMEM_TOKEN_FILE": "f",
				"TEAMMEM_REPO": "a/b", "TEAMMEM_REPO_DIR": "/r", "TEAMMEM_DIR": "/d", "TEAMMEM_STATE_DIR": "/s",
				"TEAMMEM_JSON": "true", "TEAMMEM_LOG_LEVEL": "debug"},
			commonFlags{server: "http://s", token: "t", tokenFile: "f", repo: "a/b", repoDir: "/r", dir: "/d",
				stateDir: "/s", json: true, logLevel: "debug"}},
		{"flags win", []string{"--server", "http://flag", "-json=false", "--state-dir=/flag"},
			map[string]string{"TEAMMEM_SERVER": "http://env", "TEAMMEM_JSON": "1", "TEAMMEM_STATE_DIR": "/env"},
			commonFlags{server: "http://flag", stateDir: "/flag", logLevel: "info"}},
		{"empty env ignored", nil, map[string]string{"TEAMMEM_LOG_LEVEL": ""}, commonFlags{logLevel: "info"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFlagSet("sync", "sync", &strings.Builder{})
			var c commonFlags
			c.register(fs)
			if err := parseFlags(fs, tt.args, func(k string) string { return tt.env[k] }); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c, cmp.AllowUnexported(commonFlags{})); diff != "" {
				t.Errorf("flags (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunFlagsEnvTwin(t *testing.T) {
	fs := newFlagSet("run", "run", &strings.Builder{})
	d := fs.Duration("debounce", 2*time.Second, "")
	if err := parseFlags(fs, nil, func(k string) string { return map[string]string{"TEAMMEM_DEBOUNCE": "300ms"}[k] }); err != nil {
		t.Fatal(err)
	}
	if *d != 300*time.Millisecond {
		t.Errorf("debounce = %v, want 300ms", *d)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string // fragment of stderr
	}{
		{"unknown flag", []string{"sync", "--nope"}, nil, "flag provided but not defined"},
		{"positional", []string{"push", "extra"}, nil, `unexpected argument "extra"`},
		{"bad env duration", []string{"run", "--repo", "a/b"}, map[string]string{"TEAMMEM_DEBOUNCE": "soon"}, "TEAMMEM_DEBOUNCE"},
		{"bad log level", []string{"slug", "--repo", "a/b", "--log-level", "loud"}, nil, "--log-level"},
		{"bad repo", []string{"slug", "--repo", "acme//web"}, nil, "not a repository slug"},
		{"no server", []string{"sync", "--repo", "a/b", "--dir", "/tmp", "--state-dir", "/tmp"}, nil, "no server"},
		{"seed without dir", []string{"seed", "--repo", "a/b", "--server", "http://x"}, nil, "--dir DIR is required"},
		{"max-delay below debounce", []string{"run", "--debounce", "5s", "--max-delay", "1s"}, nil, "--max-delay"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := cli(t, context.Background(), tt.env, tt.args...)
			if res.code != 2 || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("exit %d stderr %q; want exit 2 mentioning %q", res.code, res.stderr, tt.want)
			}
			if strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
				t.Errorf("stderr is not one line: %q", res.stderr)
			}
		})
	}
}

func TestHelpExitsZero(t *testing.T) {
	for _, name := range []string{"run", "sync", "pull", "push", "seed", "status", "slug"} {
		t.Run(name, func(t *testing.T) {
			res := cli(t, context.Background(), nil, name, "--help")
			if res.code != 0 || !strings.Contains(res.stdout, "Usage: teammem-agent "+name) || !strings.Contains(res.stdout, "-server") {
				t.Errorf("exit %d stdout %q stderr %q", res.code, res.stdout, res.stderr)
			}
		})
	}
}

// TestSeedHelpListsItsFlags: seed --help lists the flags seed reads and
// none of those it has no use for (it keeps no journal and touches no
// checkout); they are not accepted either.
func TestSeedHelpListsItsFlags(t *testing.T) {
	res := cli(t, context.Background(), nil, "seed", "--help")
	for _, want := range []string{"-dir DIR", "-repo SLUG", "-repo-dir", "-server URL", "-token-file", "-config", "-json", "-log-level", "-prune", "-allow-mass-delete"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("seed --help lacks %s:\n%s", want, res.stdout)
		}
	}
	for _, unused := range []string{"-state-dir", "-no-inject", "-assistants", "-stale-after", "-personal"} {
		if strings.Contains(res.stdout, unused) {
			t.Errorf("seed --help lists %s, which seed does not use:\n%s", unused, res.stdout)
		}
		if r := cli(t, context.Background(), nil, "seed", "--dir", t.TempDir(), "--repo", "acme/api", unused+"=x"); r.code != 2 {
			t.Errorf("seed %s: exit %d, want 2 (usage)", unused, r.code)
		}
	}
}

func TestHelpOK(t *testing.T) {
	if helpOK(errHelp) != nil {
		t.Error("helpOK(errHelp) != nil")
	}
	if e := errors.New("x"); helpOK(e) != e {
		t.Error("helpOK changed another error")
	}
}
