package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a minimal git working tree whose remotes are given as
// name → URL, and returns its root.
func gitRepo(t *testing.T, remotes map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{".git/objects", ".git/refs/heads", "sub/dir"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
	for name, url := range remotes {
		cfg += "[remote \"" + name + "\"]\n\turl = " + url + "\n\tfetch = +refs/heads/*:refs/remotes/" + name + "/*\n"
	}
	putFile(t, root, ".git/config", cfg)
	putFile(t, root, ".git/HEAD", "ref: refs/heads/main\n")
	return root
}

func TestSlugCommand(t *testing.T) {
	tests := []struct {
		name    string
		remotes map[string]string
		args    []string
		want    string // stdout, or a fragment of stderr when code is 1
		code    int
	}{
		{"scp style", map[string]string{"origin": "git@github.com:Acme/API.git"}, nil, "acme/api\n", 0},
		{"https with credentials", map[string]string{"origin": "https://user:pw@github.com/acme/api"}, nil, "acme/api\n", 0},
		{"ssh with port", map[string]string{"origin": "ssh://git@host:2222/acme/api.git"}, nil, "acme/api\n", 0},
		{"gitlab subgroups", map[string]string{"origin": "https://gitlab.example.com/group/sub/proj.git"}, nil, "group/sub/proj\n", 0},
		{"only remote", map[string]string{"upstream": "git@github.com:acme/web.git"}, nil, "acme/web\n", 0},
		{"origin preferred", map[string]string{"upstream": "git@github.com:acme/web.git", "origin": "git@github.com:acme/api.git"}, nil, "acme/api\n", 0},
		{"repo flag wins", map[string]string{"origin": "git@github.com:acme/api.git"}, []string{"--repo", "Other/Thing.git"}, "other/thing\n", 0},
		{"no remote", map[string]string{}, nil, "pass --repo", 1},
		{"ambiguous", map[string]string{"a": "git@h:x/a.git", "b": "git@h:x/b.git"}, nil, "pass --repo", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := gitRepo(t, tt.remotes)
			args := append([]string{"slug", "--repo-dir", filepath.Join(root, "sub", "dir")}, tt.args...)
			res := cli(t, context.Background(), nil, args...)
			if res.code != tt.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", res.code, tt.code, res.stdout, res.stderr)
			}
			if tt.code == 0 && res.stdout != tt.want {
				t.Errorf("stdout %q, want %q", res.stdout, tt.want)
			}
			if tt.code != 0 && !strings.Contains(res.stderr, tt.want) {
				t.Errorf("stderr %q, want it to mention %q", res.stderr, tt.want)
			}
		})
	}
}

func TestSlugJSONAndNotARepo(t *testing.T) {
	root := gitRepo(t, map[string]string{"origin": "git@github.com:acme/api.git"})
	res := cli(t, context.Background(), map[string]string{"TEAMMEM_REPO_DIR": root}, "slug", "--json")
	if res.code != 0 || res.stdout != `{"repo":"acme/api"}`+"\n" {
		t.Errorf("exit %d stdout %q stderr %q", res.code, res.stdout, res.stderr)
	}
	res = cli(t, context.Background(), nil, "slug", "--repo-dir", t.TempDir())
	if res.code != 1 || !strings.Contains(res.stderr, "pass --repo SLUG") {
		t.Errorf("outside a repository: exit %d stderr %q", res.code, res.stderr)
	}
}

func TestSplitKeyVersion(t *testing.T) {
	tests := []struct {
		arg     string
		key     string
		version int64
		usage   bool
	}{
		{"notes/a.md", "notes/a.md", 0, false},
		{"notes/a.md@12", "notes/a.md", 12, false},
		{"user@host.md", "user@host.md", 0, false},
		{"a@b.md@3", "a@b.md", 3, false},
		{"a.md@0", "", 0, true},
		{"a.md@-2", "", 0, true},
	}
	for _, tt := range tests {
		key, v, err := splitKeyVersion(tt.arg)
		var ue usageError
		if key != tt.key || v != tt.version || errors.As(err, &ue) != tt.usage {
			t.Errorf("splitKeyVersion(%q) = %q, %d, %v; want %q, %d, usage error %v", tt.arg, key, v, err, tt.key, tt.version, tt.usage)
		}
	}
}
