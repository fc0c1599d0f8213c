package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/teammem/teammem/memcore"
)

func init() {
	register(command{Name: "memory", Summary: "show the local memory: files, prompt, folders, rules, lint, session notes, agent memory, daily logs", Run: runMemory})
}

// memoryUsage is the help text of `teammem-agent memory`.
const memoryUsage = `Usage: teammem-agent memory <prompt|files|paths|rules PATH|lint|confirm KEY|sessions|agents|logs> [flags]

  prompt       print the assembled memory prompt
  files        list the memory files in load order, with diagnostics
  paths        print the project root, canonical root and memory folders
  rules PATH   list the conditional rules that apply to PATH
  lint         check the auto and team MEMORY.md indexes, the topic files'
               frontmatter, and the code references of the topics against
               the checkout's HEAD (stale-reference); with --stale-after,
               topics nobody changed or confirmed for that long (stale-age)
               (exit 1 when there is any problem)
  confirm KEY  record in the topic's frontmatter (verified: today) that it
               was checked and still holds; KEY is a topic of the team
               folder (deploys.md), else of the auto memory folder
  sessions     list this project's session notes: title, current state,
               size against the budgets (12,000 tokens, 2,000 a section)
               and which are over
  agents       list the agent memories (user, project and local scope):
               type, scope, size, and whether the project's snapshot is
               newer than the one each was initialised from
  logs         print the daily logs of the auto memory folder
               (logs/YYYY/MM/YYYY-MM-DD.md), oldest first

Flags (each with an environment twin):
  --cwd DIR          working directory (TEAMMEM_CWD; default: --repo-dir, else
                     the current directory)
  --home DIR         home directory (TEAMMEM_HOME; default: the user's home)
  --managed-dir DIR  managed policy folder (TEAMMEM_MANAGED_DIR; default: /etc/claude-code)
  --json             print one JSON object (TEAMMEM_JSON)
  --stale-after DAYS lint: mark topics not changed or confirmed for more
                     than DAYS days (90 or 90d; default off)
  --since DATE       logs: from this day on (2026-05-01; default all)

The common agent flags (--server, --token, --token-file, --repo, --repo-dir,
--dir, --state-dir, --log-level) are accepted too; --repo-dir stands in for
--cwd, --log-level is checked, the others do not affect these commands.
`

// memoryRun is one memory subcommand invocation, ready to run.
type memoryRun struct {
	e      *cliEnv
	flags  memoryFlags
	env    memcore.Env
	layout memcore.Layout
}

// runMemory dispatches `teammem-agent memory ...`.
func runMemory(ctx context.Context, e *cliEnv, args []string) error {
	f, pos, err := parseMemoryFlags(e, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.Stdout, memoryUsage)
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return errUsage("memory: a subcommand is required (prompt, files, paths, rules PATH, lint, confirm KEY, sessions, agents, logs)")
	}
	sub, rest := pos[0], pos[1:]
	want := 0
	if sub == "rules" || sub == "confirm" {
		want = 1
	}
	if len(rest) != want {
		return errUsage("memory %s: expected %d argument(s), got %d", sub, want, len(rest))
	}
	if f.since != "" && sub != "logs" {
		return errUsage("memory %s: --since is a flag of memory logs", sub)
	}
	handlers := map[string]func(context.Context, *memoryRun, []string) error{
		"prompt": memoryPrompt, "files": memoryFiles, "paths": memoryPaths, "rules": memoryRules, "lint": memoryLint,
		"confirm": memoryConfirm, "sessions": memorySessions, "agents": memoryAgents, "logs": memoryLogs,
	}
	h, ok := handlers[sub]
	if !ok {
		return errUsage("memory: unknown subcommand %q (see teammem-agent memory --help)", sub)
	}
	r, err := newMemoryRun(e, f)
	if err != nil {
		return err
	}
	return h(ctx, r, rest)
}

// newMemoryRun builds the memcore Env and resolves the memory layout.
func newMemoryRun(e *cliEnv, f memoryFlags) (*memoryRun, error) {
	cwd, home := orDefault(f.cwd, e.Cwd), orDefault(f.home, e.Home)
	if home == "" {
		// filepath.Abs("") would make the working directory the home, and
		// the project's .claude would then load as the user's.
		return nil, errUsage("memory: no home directory: pass --home")
	}
	var err error
	if cwd, err = filepath.Abs(cwd); err != nil {
		return nil, fmt.Errorf("memory: working directory: %w", err)
	}
	if home, err = filepath.Abs(home); err != nil {
		return nil, fmt.Errorf("memory: home directory: %w", err)
	}
	env := memcore.Env{
		Home:            home,
		ManagedDir:      f.managedDir,
		Cwd:             cwd,
		Getenv:          e.Getenv,
		CaseInsensitive: runtime.GOOS == "darwin" || runtime.GOOS == "windows",
		PID:             os.Getpid(),
	}
	layout, err := memcore.ResolveLayout(env)
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	return &memoryRun{e: e, flags: f, env: env, layout: layout}, nil
}

// orDefault returns v, or def when v is empty.
func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// loadOptions are the memcore load options of this run.
func (r *memoryRun) loadOptions() memcore.LoadOptions {
	opts := memcore.LoadOptions{
		Env:           r.env,
		ProjectRoot:   r.layout.ProjectRoot,
		CanonicalRoot: r.layout.CanonicalRoot,
		Excludes:      r.layout.Settings.ClaudeMdExcludes,
	}
	if r.layout.AutoMemoryEnabled {
		opts.AutoMemDir = r.layout.AutoMemDir
	}
	return opts
}

// emitJSON prints v as one JSON object on a line.
func (r *memoryRun) emitJSON(v any) error {
	enc := json.NewEncoder(r.e.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("memory: write output: %w", err)
	}
	return nil
}
