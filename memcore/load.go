package memcore

import (
	"context"
	"fmt"
	"path/filepath"
)

// MemoryType is the layer a memory file belongs to.
type MemoryType string

// The memory types, in ascending priority of their load order.
const (
	Managed MemoryType = "Managed"
	User    MemoryType = "User"
	Project MemoryType = "Project"
	Local   MemoryType = "Local"
	AutoMem MemoryType = "AutoMem"
	// TeamMem is the team folder's index. Load never returns it: no
	// Claude Code version reads the team folder on its own, and team
	// memory reaches the prompt through the agent's block in
	// CLAUDE.local.md (a Local file). Tools list it with TeamIndexPath.
	TeamMem MemoryType = "TeamMem"
)

// TeamIndexPath is the team folder's MEMORY.md for an auto memory
// directory, "" when auto memory is off. It is not loaded (see TeamMem).
func TeamIndexPath(autoMemDir string) string {
	if autoMemDir == "" {
		return ""
	}
	return filepath.Join(autoMemDir, teamDirName, memoryIndexName)
}

// EnvDisableClaudeMds, when truthy, disables loading instruction files.
const EnvDisableClaudeMds = "CLAUDE_CODE_DISABLE_CLAUDE_MDS"

// maxIncludeDepth is the include depth that is no longer loaded (the top
// file is depth 0).
const maxIncludeDepth = 5

// File is one loaded memory file.
type File struct {
	// Path is the cleaned absolute path, as discovered (symlinks not resolved).
	Path string
	// Type is the layer; an included file has its includer's type.
	Type MemoryType
	// Content is the processed text: frontmatter and HTML comments removed,
	// MEMORY.md truncated.
	Content string
	// Parent is the including file's Path, "" for a file that was not included.
	Parent string
	// Globs are the frontmatter `paths` of a conditional rule, nil otherwise.
	Globs []string
	// ContentDiffersFromDisk is true when processing changed the text.
	ContentDiffersFromDisk bool
	// RawContent is the text as read (BOM dropped), only when it differs.
	RawContent string
	// Truncated is true when the MEMORY.md budget cut the content.
	Truncated bool
}

// Diagnostic explains why a file was skipped or partly ignored.
type Diagnostic struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// LoadOptions configures Load and ConditionalRules.
type LoadOptions struct {
	// Env supplies home, managed dir, working directory, environment and
	// case sensitivity.
	Env Env
	// ProjectRoot is the git root of Env.Cwd, else Env.Cwd ("" = Env.Cwd).
	// Includes may not leave it (see AllowExternalIncludes).
	ProjectRoot string
	// CanonicalRoot is the main checkout's root ("" = ProjectRoot); when
	// ProjectRoot is a worktree nested inside it, the main checkout's
	// Project files above the worktree are skipped.
	CanonicalRoot string
	// AutoMemDir is the auto memory directory; "" disables auto memory
	// (callers pass "" when AutoMemoryEnabled reports false).
	// The team folder <AutoMemDir>/team/ is not loaded (see TeamIndexPath).
	AutoMemDir string
	// AllowExternalIncludes lets every file include files outside
	// ProjectRoot; User files always may.
	AllowExternalIncludes bool
	// Excludes are claudeMdExcludes glob patterns on absolute paths.
	Excludes []string
	// Bare skips discovery; only ExtraDirs are loaded.
	Bare bool
	// ExtraDirs are explicitly added directories, loaded after the
	// Project/Local walk like one more directory of it.
	ExtraDirs []string
}

// LoadResult is the outcome of Load.
type LoadResult struct {
	// Files in load order (ascending priority).
	Files []File
	// Diagnostics for skipped files and ignored parts, in discovery order.
	Diagnostics []Diagnostic
}

// Load finds and processes every memory file in the order of spec §1:
// Managed, User, Project and Local from the filesystem root down to the
// working directory, ExtraDirs, AutoMem; never TeamMem, which the real
// clients do not load (spec §1, step 5). Each file is processed
// per §2 (frontmatter, HTML comments, @includes, MEMORY.md budget). Files
// that are missing are not reported; unreadable, directory, binary,
// excluded and refused include files are skipped into Diagnostics. Load
// returns an error only when ctx ends. A truthy CLAUDE_CODE_DISABLE_CLAUDE_MDS
// (through opts.Env.Getenv) returns an empty result.
func Load(ctx context.Context, opts LoadOptions) (LoadResult, error) {
	if truthy(opts.Env.getenv(EnvDisableClaudeMds)) {
		return LoadResult{}, nil
	}
	l := newLoader(ctx, opts)
	if !opts.Bare {
		l.loadManaged()
		l.loadUser()
		l.walkProject()
	}
	for _, dir := range opts.ExtraDirs {
		l.loadDir(l.abs(dir), false)
	}
	if !opts.Bare {
		l.loadAutoMem()
	}
	if err := ctx.Err(); err != nil {
		return LoadResult{}, fmt.Errorf("load memory files: %w", err)
	}
	return LoadResult{Files: l.files, Diagnostics: l.diags}, nil
}
