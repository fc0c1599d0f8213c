package memcore

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/internal/memtest"
)

func TestResolvePathsDefault(t *testing.T) {
	env := memTestEnv(t, nil)
	got, err := ResolvePaths(env)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(env.Home, ".claude")
	mem := filepath.Join(base, "projects", SanitizePath(env.Cwd), "memory") + pathSep
	want := Paths{
		ProjectRoot:   env.Cwd,
		CanonicalRoot: env.Cwd,
		MemoryBase:    base,
		AutoMemDir:    mem,
		TeamDir:       mem + "team" + pathSep,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ResolvePaths (-want +got):\n%s", diff)
	}
}

func TestResolvePathsConfigDir(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "cfg")
	env := memTestEnv(t, map[string]string{"CLAUDE_CONFIG_DIR": cfg})
	// User settings live in the config dir too; one there is honoured.
	memtest.Write(t, filepath.Join(env.Home, ".claude", "settings.json"), `{"autoMemoryDirectory": "/ignored/home/settings"}`)
	got, err := ResolvePaths(env)
	if err != nil {
		t.Fatal(err)
	}
	if got.MemoryBase != cfg {
		t.Errorf("MemoryBase = %q, want %q", got.MemoryBase, cfg)
	}
	want := filepath.Join(cfg, "projects", SanitizePath(env.Cwd), "memory") + pathSep
	if got.AutoMemDir != want {
		t.Errorf("AutoMemDir = %q, want %q", got.AutoMemDir, want)
	}
}

func TestResolvePathsSettingsPrecedence(t *testing.T) {
	abs := func(name string) string { return filepath.Join(string(filepath.Separator), "mem", name) }
	setting := func(dir string) string { return `{"autoMemoryDirectory": ` + memQuoteJSON(dir) + `}` }
	tests := []struct {
		name     string
		policy   string // managed-settings.json
		flag     string // Env.FlagSettings
		local    string // .claude/settings.local.json
		project  string // .claude/settings.json (never trusted)
		user     string // ~/.claude/settings.json
		override string // CLAUDE_COWORK_MEMORY_PATH_OVERRIDE
		want     string // "" = default folder; "~" prefix = under home
		diags    int
	}{
		{name: "user", user: abs("user"), want: abs("user") + pathSep},
		{name: "local beats user", local: abs("local"), user: abs("user"), want: abs("local") + pathSep},
		{name: "flag beats local", flag: abs("flag"), local: abs("local"), want: abs("flag") + pathSep},
		{name: "policy beats flag", policy: abs("policy"), flag: abs("flag"), user: abs("user"), want: abs("policy") + pathSep},
		{name: "project settings to ssh ignored", project: "~/.ssh", want: "", diags: 1},
		{name: "project settings never win over user", project: "~/.ssh", user: abs("user"), want: abs("user") + pathSep, diags: 1},
		{name: "tilde expanded", user: "~/notes/mem", want: "~notes" + pathSep + "mem" + pathSep},
		{name: "invalid policy does not fall through", policy: "relative/dir", user: abs("user"), want: "", diags: 1},
		{name: "override beats policy", override: abs("override"), policy: abs("policy"), want: abs("override") + pathSep},
		{name: "invalid override falls to settings", override: "relative", user: abs("user"), want: abs("user") + pathSep, diags: 1},
		{name: "override does not expand tilde", override: "~/x", want: "", diags: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := memTestEnv(t, map[string]string{envMemoryOverride: tt.override})
			write := func(path, dir string) {
				if dir != "" {
					memtest.Write(t, path, setting(dir))
				}
			}
			write(filepath.Join(env.ManagedDir, "managed-settings.json"), tt.policy)
			write(filepath.Join(env.Cwd, ".claude", "settings.local.json"), tt.local)
			write(filepath.Join(env.Cwd, ".claude", "settings.json"), tt.project)
			write(filepath.Join(env.Home, ".claude", "settings.json"), tt.user)
			if tt.flag != "" {
				env.FlagSettings = map[string]any{"autoMemoryDirectory": tt.flag}
			}
			l, err := ResolveLayout(env)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			switch {
			case want == "":
				want = filepath.Join(env.Home, ".claude", "projects", SanitizePath(env.Cwd), "memory") + pathSep
			case want[0] == '~':
				want = filepath.Join(env.Home, want[1:]) + pathSep
			}
			if l.AutoMemDir != want {
				t.Errorf("AutoMemDir = %q, want %q", l.AutoMemDir, want)
			}
			if l.TeamDir != want+"team"+pathSep {
				t.Errorf("TeamDir = %q, want %q", l.TeamDir, want+"team"+pathSep)
			}
			if len(l.Diagnostics) != tt.diags {
				t.Errorf("diagnostics = %v, want %d", l.Diagnostics, tt.diags)
			}
		})
	}
}

// quoteJSON quotes s as a JSON string (paths on Windows hold backslashes).
func memQuoteJSON(s string) string {
	b := []byte{'"'}
	for _, r := range s {
		if r == '\\' || r == '"' {
			b = append(b, '\\')
		}
		b = append(b, string(r)...)
	}
	return string(append(b, '"'))
}

func TestResolvePathsWorktreesShareMemory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	main := filepath.Join(root, "main")
	memtest.Mkdir(t, main)
	memGit(t, main, "init", "-q")
	memGit(t, main, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "init")
	sibling := filepath.Join(root, "wt-sibling")
	nested := filepath.Join(main, ".claude", "worktrees", "x")
	memGit(t, main, "worktree", "add", "-q", "-b", "sib", sibling)
	memGit(t, main, "worktree", "add", "-q", "-b", "nest", nested)
	memtest.Mkdir(t, filepath.Join(nested, "pkg", "deep"))

	tests := []struct {
		name, cwd, wantProject string
	}{
		{"main checkout", main, main},
		{"sibling worktree", sibling, sibling},
		{"nested worktree", filepath.Join(nested, "pkg", "deep"), nested},
	}
	mainPaths := Paths{}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := memTestEnv(t, nil)
			env.Home = filepath.Join(root, "home")
			env.Cwd = tt.cwd
			got, err := ResolvePaths(env)
			if err != nil {
				t.Fatal(err)
			}
			if !samePath(got.ProjectRoot, tt.wantProject) {
				t.Errorf("ProjectRoot = %q, want %q", got.ProjectRoot, tt.wantProject)
			}
			if !samePath(got.CanonicalRoot, main) {
				t.Errorf("CanonicalRoot = %q, want %q", got.CanonicalRoot, main)
			}
			if i == 0 {
				mainPaths = got
			} else if got.AutoMemDir != mainPaths.AutoMemDir {
				t.Errorf("AutoMemDir = %q, want the main checkout's %q", got.AutoMemDir, mainPaths.AutoMemDir)
			}
		})
	}
}

// gitRun runs git in dir and fails the test on error.
func memGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestCanonicalGitRootHandBuilt(t *testing.T) {
	root := t.TempDir()
	main := filepath.Join(root, "main")
	memtest.Mkdir(t, filepath.Join(main, ".git", "worktrees", "wt"))
	memtest.Mkdir(t, filepath.Join(main, ".git", "modules", "sub"))
	wt := filepath.Join(root, "wt")
	memtest.Write(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(main, ".git", "worktrees", "wt")+"\n")
	memtest.Write(t, filepath.Join(main, ".git", "worktrees", "wt", "commondir"), "../..\n")
	memtest.Write(t, filepath.Join(main, ".git", "worktrees", "wt", "gitdir"), filepath.Join(wt, ".git")+"\n")
	// A forged link: claims main's worktree entry but main's back-link names wt.
	forged := filepath.Join(root, "forged")
	memtest.Write(t, filepath.Join(forged, ".git"), "gitdir: "+filepath.Join(main, ".git", "worktrees", "wt")+"\n")
	// A submodule: a gitdir link without commondir.
	sub := filepath.Join(main, "sub")
	memtest.Write(t, filepath.Join(sub, ".git"), "gitdir: ../.git/modules/sub\n")
	// A bare repository's worktree.
	bare := filepath.Join(root, "repo.git")
	memtest.Mkdir(t, filepath.Join(bare, "worktrees", "b"))
	bwt := filepath.Join(root, "bwt")
	memtest.Write(t, filepath.Join(bwt, ".git"), "gitdir: "+filepath.Join(bare, "worktrees", "b")+"\n")
	memtest.Write(t, filepath.Join(bare, "worktrees", "b", "commondir"), "../..\n")
	memtest.Write(t, filepath.Join(bare, "worktrees", "b", "gitdir"), filepath.Join(bwt, ".git")+"\n")
	// Not a gitdir link at all.
	junk := filepath.Join(root, "junk")
	memtest.Write(t, filepath.Join(junk, ".git"), "hello\n")

	tests := []struct {
		name, root, want string
		wantErr          bool
	}{
		{name: "main", root: main, want: main},
		{name: "worktree", root: wt, want: main},
		{name: "forged link", root: forged, want: forged},
		{name: "submodule", root: sub, want: sub},
		{name: "bare repository worktree", root: bwt, want: bare},
		{name: "junk .git file", root: junk, wantErr: true},
		{name: "no .git", root: root, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CanonicalGitRoot(tt.root)
			if (err != nil) != tt.wantErr {
				t.Fatalf("CanonicalGitRoot(%q) error = %v, wantErr %v", tt.root, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("CanonicalGitRoot(%q) = %q, want %q", tt.root, got, tt.want)
			}
		})
	}
}

func TestFindGitRoot(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	memtest.Mkdir(t, filepath.Join(repo, ".git"))
	memtest.Mkdir(t, filepath.Join(repo, "a", "b"))
	wt := filepath.Join(repo, "a", "wt")
	memtest.Write(t, filepath.Join(wt, ".git"), "gitdir: x\n")
	memtest.Mkdir(t, filepath.Join(wt, "c"))
	tests := []struct {
		name, dir, want string
		ok              bool
	}{
		{"at root", repo, repo, true},
		{"below root", filepath.Join(repo, "a", "b"), repo, true},
		{".git file wins over outer repo", filepath.Join(wt, "c"), wt, true},
		{"no repository", root, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := FindGitRoot(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || ok != tt.ok {
				t.Errorf("FindGitRoot(%q) = %q, %v; want %q, %v", tt.dir, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestValidateMemoryPath(t *testing.T) {
	home := filepath.Join(string(filepath.Separator), "home", "ana")
	if runtime.GOOS == "windows" {
		home = `C:\Users\ana`
	}
	tests := []struct {
		name, in, want string
	}{
		{name: "absolute", in: "/srv/mem", want: "/srv/mem/"},
		{name: "cleaned", in: "/srv//mem/./x/../", want: "/srv/mem/"},
		{name: "tilde", in: "~/mem", want: home + "/mem/"},
		{name: "NFC", in: "/srv/cafe\u0301", want: "/srv/caf\u00e9/"},
		{name: "relative", in: "mem/dir"},
		{name: "dot relative", in: "./mem"},
		{name: "empty", in: ""},
		{name: "root", in: "/"},
		{name: "root with slashes", in: "///"},
		{name: "short", in: "/a"},
		{name: "drive root", in: `C:\`},
		{name: "drive", in: "C:"},
		{name: "UNC backslash", in: `\\server\share\mem`},
		{name: "UNC slash", in: "//server/share/mem"},
		{name: "UNC mixed", in: `/\server\share`},
		{name: "NUL", in: "/srv/mem\x00/x"},
		{name: "bare tilde", in: "~"},
		{name: "tilde slash", in: "~/"},
		{name: "tilde dot", in: "~/."},
		{name: "tilde dotdot", in: "~/.."},
		{name: "other user", in: "~root/mem"},
		{name: "tilde dot backslash", in: `~/.\`},
		{name: "tilde dotdot backslash", in: `~/..\`},
		{name: "tilde backslashes", in: `~/\\`},
		{name: "trailing backslash", in: `/srv/mem\`, want: "/srv/mem/"},
		{name: "dot backslash", in: `/srv/mem/.\`, want: "/srv/mem/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateMemoryPath(tt.in, home)
			want := filepath.FromSlash(tt.want)
			if runtime.GOOS == "windows" && want != "" && want[0] == '\\' {
				t.Skip("Unix absolute path")
			}
			if tt.want == "" {
				if !errors.Is(err, ErrInvalidMemoryPath) {
					t.Errorf("ValidateMemoryPath(%q) = %q, %v; want ErrInvalidMemoryPath", tt.in, got, err)
				}
				return
			}
			if err != nil || got != want {
				t.Errorf("ValidateMemoryPath(%q) = %q, %v; want %q", tt.in, got, err, want)
			}
		})
	}
}

func TestAutoMemoryEnabled(t *testing.T) {
	on, off := true, false
	tests := []struct {
		name    string
		env     string
		setting *bool
		want    bool
	}{
		{"default", "", nil, true},
		{"env truthy", "1", nil, false},
		{"env true beats setting", "true", &on, false},
		{"setting off", "", &off, false},
		{"env falsy forces on", "0", &off, true},
		{"unknown env value ignored", "maybe", &off, false},
		{"env tRuE with spaces", " tRuE\n", nil, false},
		{"env YES mixed case", "yEs", &on, false},
		{"env falsy with spaces", " Off ", &off, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := Env{Getenv: func(k string) string {
				if k == "CLAUDE_CODE_DISABLE_AUTO_MEMORY" {
					return tt.env
				}
				return ""
			}}
			if got := AutoMemoryEnabled(env, Settings{AutoMemoryEnabled: tt.setting}); got != tt.want {
				t.Errorf("AutoMemoryEnabled = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGitRootRefusesRelativePaths(t *testing.T) {
	for _, dir := range []string{"", ".", "repo", filepath.Join("..", "x")} {
		t.Run("FindGitRoot "+dir, func(t *testing.T) {
			if _, _, err := FindGitRoot(dir); !errors.Is(err, ErrRelativePath) {
				t.Errorf("FindGitRoot(%q) err = %v, want ErrRelativePath", dir, err)
			}
		})
		t.Run("CanonicalGitRoot "+dir, func(t *testing.T) {
			if _, err := CanonicalGitRoot(dir); !errors.Is(err, ErrRelativePath) {
				t.Errorf("CanonicalGitRoot(%q) err = %v, want ErrRelativePath", dir, err)
			}
		})
	}
}
