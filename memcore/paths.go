package memcore

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Folder and file names of the memory layout (§7).
const (
	projectsDirName = "projects"
	autoMemDirName  = "memory"
	teamDirName     = "team"
)

// Environment variables that locate the memory folders.
const (
	envMemoryOverride = "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"
	envConfigDir      = "CLAUDE_CONFIG_DIR"
)

// ErrInvalidMemoryPath is returned by ValidateMemoryPath for a path that may
// not be used as a memory folder.
var ErrInvalidMemoryPath = errors.New("invalid memory path")

// Paths are the folders of one working directory's memory (§7). Folder
// fields that name memory folders end with a path separator, as the original
// returns them.
type Paths struct {
	// ProjectRoot is the git root of the working directory, else the
	// working directory.
	ProjectRoot string `json:"projectRoot"`
	// CanonicalRoot is the main checkout's root for a worktree, else
	// ProjectRoot.
	CanonicalRoot string `json:"canonicalRoot"`
	// MemoryBase is CLAUDE_CONFIG_DIR, else <home>/.claude.
	MemoryBase string `json:"memoryBase"`
	// AutoMemDir is the private auto memory folder.
	AutoMemDir string `json:"autoMemDir"`
	// TeamDir is <AutoMemDir>/team/.
	TeamDir string `json:"teamDir"`
}

// Layout is everything ResolveLayout finds out about a working directory's
// memory: its folders, the settings that shaped them and what was ignored.
type Layout struct {
	Paths
	// Settings are the settings read for the project.
	Settings Settings
	// AutoMemoryEnabled is AutoMemoryEnabled(env, Settings).
	AutoMemoryEnabled bool
	// Diagnostics lists settings files and values that were ignored.
	Diagnostics []Diagnostic
}

// ResolvePaths returns the memory folders for env.Cwd (see ResolveLayout).
func ResolvePaths(env Env) (Paths, error) {
	l, err := ResolveLayout(env)
	return l.Paths, err
}

// ResolveLayout locates the project, reads its settings and picks the auto
// memory folder, first that applies: a valid CLAUDE_COWORK_MEMORY_PATH_OVERRIDE;
// the autoMemoryDirectory setting (policy, flag, local, user — never project);
// <memoryBase>/projects/<SanitizePath(canonical root)>/memory/. All worktrees
// of a repository share the last one. Errors come from an unusable Env or an
// unreadable git layout.
func ResolveLayout(env Env) (Layout, error) {
	var l Layout
	if env.Cwd == "" || !filepath.IsAbs(env.Cwd) {
		return l, fmt.Errorf("resolve paths: working directory %q is not absolute", env.Cwd)
	}
	if err := l.findRoots(env.Cwd); err != nil {
		return l, err
	}
	s, diags, err := LoadSettings(env, l.ProjectRoot)
	if err != nil {
		return l, fmt.Errorf("resolve paths: %w", err)
	}
	l.Settings, l.Diagnostics = s, diags
	l.AutoMemoryEnabled = AutoMemoryEnabled(env, s)
	l.MemoryBase = MemoryBase(env)
	l.AutoMemDir = l.autoMemDir(env)
	l.TeamDir = filepath.Join(l.AutoMemDir, teamDirName) + string(filepath.Separator)
	return l, nil
}

// findRoots fills ProjectRoot and CanonicalRoot.
func (l *Layout) findRoots(cwd string) error {
	cwd = filepath.Clean(cwd)
	root, ok, err := FindGitRoot(cwd)
	if err != nil {
		return fmt.Errorf("resolve paths: %w", err)
	}
	if !ok {
		l.ProjectRoot, l.CanonicalRoot = cwd, cwd
		return nil
	}
	canonical, err := CanonicalGitRoot(root)
	if err != nil {
		return fmt.Errorf("resolve paths: %w", err)
	}
	l.ProjectRoot, l.CanonicalRoot = root, canonical
	return nil
}

// autoMemDir applies the override order of §7.
func (l *Layout) autoMemDir(env Env) string {
	if raw := env.getenv(envMemoryOverride); raw != "" {
		dir, err := validateMemoryPath(raw, env.Home, false)
		if err == nil {
			return dir
		}
		l.Diagnostics = append(l.Diagnostics, Diagnostic{Path: envMemoryOverride, Message: "ignored: " + err.Error()})
	}
	if l.Settings.AutoMemoryDirectory != "" {
		return l.Settings.AutoMemoryDirectory
	}
	dir := filepath.Join(l.MemoryBase, projectsDirName, SanitizePath(l.CanonicalRoot), autoMemDirName)
	return norm.NFC.String(dir + string(filepath.Separator))
}

// MemoryBase returns CLAUDE_CONFIG_DIR (made absolute against Env.Cwd), else
// <home>/.claude. It holds settings.json, projects/, agent-memory/ and
// session-memory/.
func MemoryBase(env Env) string {
	if dir := env.getenv(envConfigDir); dir != "" {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(env.Cwd, dir)
		}
		return filepath.Clean(dir)
	}
	return env.userConfigDir()
}

// ProjectDir returns <memoryBase>/projects/<SanitizePath(dir)>, the folder
// that holds a working directory's session transcripts (*.jsonl) and session
// notes.
func ProjectDir(memoryBase, dir string) string {
	return filepath.Join(memoryBase, projectsDirName, SanitizePath(dir))
}

// driveRoot matches a bare Windows drive ("C:") once trailing separators are gone.
var driveRoot = regexp.MustCompile(`^[A-Za-z]:$`)

// ValidateMemoryPath checks a configured memory folder. A leading "~/" (or
// "~\") is expanded against home, but not to home itself or its parent. It
// returns ErrInvalidMemoryPath for a relative path, the root "/", a Windows
// drive root, a UNC path ("\\server\share", "//server/share") and any NUL
// byte; otherwise the path cleaned, absolute, in Unicode NFC and with a
// trailing separator.
func ValidateMemoryPath(p string, home string) (string, error) {
	return validateMemoryPath(p, home, true)
}

// validateMemoryPath is ValidateMemoryPath with tilde expansion optional (the
// environment override does not expand it).
func validateMemoryPath(p, home string, expandTilde bool) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: contains a NUL byte", ErrInvalidMemoryPath)
	}
	if expandTilde && (strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`)) {
		rest := trimSeparators(filepath.FromSlash(p[2:]))
		if rest == "" || rest == "." || rest == ".." || home == "" {
			return "", fmt.Errorf("%w: %q names the whole home directory", ErrInvalidMemoryPath, p)
		}
		p = filepath.Join(home, rest)
	}
	if isUNC(p) {
		return "", fmt.Errorf("%w: %q is a network (UNC) path", ErrInvalidMemoryPath, p)
	}
	clean := trimSeparators(p)
	switch {
	case !filepath.IsAbs(p):
		return "", fmt.Errorf("%w: %q is not absolute", ErrInvalidMemoryPath, p)
	case len(clean) < 3 || driveRoot.MatchString(clean):
		return "", fmt.Errorf("%w: %q is a filesystem root or too short", ErrInvalidMemoryPath, p)
	}
	return norm.NFC.String(clean + string(filepath.Separator)), nil
}

// trimSeparators cleans p and removes its trailing separators, slashes and
// backslashes alike (a path written for Windows: on Unix a backslash could
// name a file, but "~/.\\" in a setting means the home directory), cleaning
// again after each removal so that what is left never ends in "." or "..";
// "" when p is only separators, a bare drive when p is a drive root.
func trimSeparators(p string) string {
	clean := filepath.Clean(p)
	for {
		t := strings.TrimRight(clean, `/\`)
		if t == clean {
			return clean
		}
		if t == "" || filepath.VolumeName(t) == t { // a bare drive ("C:") stays one: Clean would make it "C:."
			return t
		}
		clean = filepath.Clean(t)
	}
}

// isUNC reports whether p starts with two slashes or backslashes in any mix.
func isUNC(p string) bool {
	return len(p) >= 2 && (p[0] == '/' || p[0] == '\\') && (p[1] == '/' || p[1] == '\\')
}

// OrgMemoryDir is the folder the agent syncs the org memory of namespace ns
// into: <memoryBase>/org-memory/<ns>, the segments of a nested group's
// namespace joined by "+" (no slug segment holds one), so that no org
// folder lies inside another. Like the team folder, no assistant loads it
// on its own: the managed block carries its index.
func OrgMemoryDir(memoryBase, ns string) string {
	return filepath.Join(memoryBase, "org-memory", strings.ReplaceAll(ns, "/", "+"))
}
