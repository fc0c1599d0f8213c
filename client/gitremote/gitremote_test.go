package gitremote_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/teammem/teammem/client/gitremote"
)

// initRepo creates a git repository at dir with the given remotes
// (name → URL) using go-git.
func initRepo(t *testing.T, dir string, remotes map[string]string) *git.Repository {
	t.Helper()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for name, url := range remotes {
		if _, err := repo.CreateRemote(&config.RemoteConfig{Name: name, URLs: []string{url}}); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

// mkdirs creates dir and its parents.
func mkdirs(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// samePath fails unless got and want name the same folder.
func samePath(t *testing.T, got, want string) {
	t.Helper()
	g, err1 := filepath.EvalSymlinks(got)
	w, err2 := filepath.EvalSymlinks(want)
	if err1 != nil || err2 != nil || g != w {
		t.Errorf("path = %s, want %s", got, want)
	}
}

func TestFindRepo(t *testing.T) {
	root := t.TempDir()
	initRepo(t, root, nil)
	deep := mkdirs(t, filepath.Join(root, "a", "b", "c"))

	for _, dir := range []string{root, deep, filepath.Join(deep, "..")} {
		got, err := gitremote.FindRepo(dir)
		if err != nil {
			t.Fatalf("FindRepo(%s): %v", dir, err)
		}
		samePath(t, got, root)
	}

	t.Run("not a repository", func(t *testing.T) {
		if _, err := gitremote.FindRepo(t.TempDir()); !errors.Is(err, gitremote.ErrNotRepo) {
			t.Errorf("error = %v, want ErrNotRepo", err)
		}
	})
	t.Run("missing dir", func(t *testing.T) {
		if _, err := gitremote.FindRepo(filepath.Join(deep, "nope")); err == nil || !errors.Is(err, os.ErrNotExist) {
			t.Errorf("error = %v, want not-exist", err)
		}
	})
	t.Run("bare repository", func(t *testing.T) {
		bare := t.TempDir()
		if _, err := git.PlainInit(bare, true); err != nil {
			t.Fatal(err)
		}
		if _, err := gitremote.FindRepo(bare); !errors.Is(err, gitremote.ErrNotRepo) {
			t.Errorf("error = %v, want ErrNotRepo", err)
		}
	})
}

func TestRemote(t *testing.T) {
	tests := []struct {
		name      string
		remotes   map[string]string
		wantName  string
		wantURL   string
		wantErr   error
		errSubstr string
	}{
		{"origin", map[string]string{"origin": "git@github.com:acme/api.git"}, "origin", "git@github.com:acme/api.git", nil, ""},
		{"origin among others", map[string]string{"upstream": "https://h/up/x", "origin": "https://h/acme/api", "fork": "https://h/me/x"},
			"origin", "https://h/acme/api", nil, ""},
		{"only remote", map[string]string{"upstream": "https://h/acme/api"}, "upstream", "https://h/acme/api", nil, ""},
		{"two remotes, no origin", map[string]string{"upstream": "https://h/a/b", "fork": "https://h/c/d"}, "", "", gitremote.ErrAmbiguousRemote, "fork, upstream"},
		{"no remote", nil, "", "", gitremote.ErrNoRemote, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			initRepo(t, root, tt.remotes)
			name, url, err := gitremote.Remote(root)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errSubstr) {
					t.Fatalf("Remote = %q %q %v; want %v naming %q", name, url, err, tt.wantErr, tt.errSubstr)
				}
				return
			}
			if err != nil || name != tt.wantName || url != tt.wantURL {
				t.Errorf("Remote = %q %q %v; want %q %q", name, url, err, tt.wantName, tt.wantURL)
			}
		})
	}
}

func TestSlug(t *testing.T) {
	tests := []struct {
		name    string
		remotes map[string]string
		want    string
	}{
		{"github scp", map[string]string{"origin": "git@github.com:Acme/API.git"}, "acme/api"},
		{"gitlab nested groups", map[string]string{"origin": "https://gitlab.example.com/group/sub/proj.git"}, "group/sub/proj"},
		{"only remote with credentials", map[string]string{"mirror": "https://user:pw@github.com/acme/api"}, "acme/api"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			initRepo(t, root, tt.remotes)
			deep := mkdirs(t, filepath.Join(root, "src", "pkg", "internal"))
			got, err := gitremote.Slug(deep)
			if err != nil || got != tt.want {
				t.Errorf("Slug = %q, %v; want %q", got, err, tt.want)
			}
		})
	}

	t.Run("local remote", func(t *testing.T) {
		root := t.TempDir()
		initRepo(t, root, map[string]string{"origin": "/srv/git/acme/api.git"})
		if _, err := gitremote.Slug(root); !errors.Is(err, gitremote.ErrLocalRemote) {
			t.Errorf("error = %v, want ErrLocalRemote", err)
		}
	})
	t.Run("ambiguous remotes", func(t *testing.T) {
		root := t.TempDir()
		initRepo(t, root, map[string]string{"a": "https://h/a/b", "b": "https://h/c/d"})
		if _, err := gitremote.Slug(root); !errors.Is(err, gitremote.ErrAmbiguousRemote) {
			t.Errorf("error = %v, want ErrAmbiguousRemote", err)
		}
	})
	t.Run("insteadOf rule of the repository", func(t *testing.T) {
		root := t.TempDir()
		repo := initRepo(t, root, nil)
		cfg, err := repo.Config()
		if err != nil {
			t.Fatal(err)
		}
		cfg.URLs["https://github.com/"] = &config.URL{Name: "https://github.com/", InsteadOf: "gh:"}
		cfg.Remotes["origin"] = &config.RemoteConfig{Name: "origin", URLs: []string{"gh:acme/api"}}
		if err := repo.SetConfig(cfg); err != nil {
			t.Fatal(err)
		}
		if got, err := gitremote.Slug(root); err != nil || got != "acme/api" {
			t.Errorf("Slug = %q, %v; want acme/api", got, err)
		}
	})
}

// TestLinkedWorktree checks a worktree made by `git worktree add` finds its
// own root and the main repository's remote.
func TestLinkedWorktree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is required in CI")
		}
		t.Skip("git not installed")
	}
	main := t.TempDir()
	repo := initRepo(t, main, map[string]string{"origin": "https://gitlab.example.com/group/sub/proj.git"})
	commitEmpty(t, repo)
	wt := filepath.Join(t.TempDir(), "feature")
	gitCmd(t, main, "worktree", "add", "-b", "feature", wt)
	deep := mkdirs(t, filepath.Join(wt, "docs", "notes"))

	root, err := gitremote.FindRepo(deep)
	if err != nil {
		t.Fatalf("FindRepo: %v", err)
	}
	samePath(t, root, wt)
	if fi, err := os.Stat(filepath.Join(wt, ".git")); err != nil || fi.IsDir() {
		t.Fatalf("%s/.git should be a file in a linked worktree", wt)
	}
	name, url, err := gitremote.Remote(root)
	if err != nil || name != "origin" || url != "https://gitlab.example.com/group/sub/proj.git" {
		t.Errorf("Remote = %q %q %v", name, url, err)
	}
	if got, err := gitremote.Slug(deep); err != nil || got != "group/sub/proj" {
		t.Errorf("Slug = %q, %v; want group/sub/proj", got, err)
	}
}

// commitEmpty makes an empty first commit so a worktree can branch from it.
func commitEmpty(t *testing.T, repo *git.Repository) {
	t.Helper()
	w, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "test", Email: "test@example.com", When: time.Unix(1767322800, 0)}
	if _, err := w.Commit("init", &git.CommitOptions{Author: sig, AllowEmptyCommits: true}); err != nil {
		t.Fatal(err)
	}
}

// gitCmd runs the git CLI in dir, isolated from the user's configuration.
func gitCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
