package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/agent"
	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/client/mcpinstall"
	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/client/userconfig"
	"github.com/teammem/teammem/internal/buildinfo"
	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/protocol"
)

// commonFlags are the flags every sync subcommand shares (spec/cli.md).
type commonFlags struct {
	server, token, tokenFile string
	repo, repoDir, dir       string
	stateDir, logLevel       string
	json                     bool
	noInject                 bool
	// assistants is --assistants as given ("": not given).
	assistants string
	config     string
	staleAfter time.Duration // 0: off
	// noRepo: the command is about no one repository (search --all), so
	// the session resolves none, nor its folders.
	noRepo bool
	// orRegistered: the command only reads a repository's memory, so
	// outside any checkout it may read the registered checkouts' (see
	// useRegistered).
	orRegistered bool
	// personal: the command is about the user's personal memory of the
	// repository (~/SLUG on the server) and the private memory folder of
	// the checkout's project, not the team folder.
	personal bool
}

// register adds the common flags to fs.
func (c *commonFlags) register(fs *flag.FlagSet) {
	c.registerConnection(fs)
	fs.StringVar(&c.dir, "dir", "", "team memory `DIR` (default: the team folder of the repository's auto memory)")
	fs.StringVar(&c.stateDir, "state-dir", "", "`DIR` for the journals (default: the user's state directory; the one-agent-per-folder lock is machine-wide, not here)")
	c.registerJSON(fs)
	fs.BoolVar(&c.noInject, "no-inject", false, "keep no team memory block in the checkouts' assistant files (and take out the one there)")
	fs.StringVar(&c.assistants, "assistants", "", "comma-separated `LIST` of the assistants whose files get the team memory block: "+strings.Join(assistants.Names(assistants.All), ", ")+" (default: agent.toml's, else "+assistants.Claude.Name+" and the assistants found in your home)")
	c.registerStale(fs)
}

// registerJSON adds --json.
func (c *commonFlags) registerJSON(fs *flag.FlagSet) {
	fs.BoolVar(&c.json, "json", false, "print JSON: one object per command (per event for run)")
}

// personalUsage says what --personal does for a command about one folder.
const personalUsage = "your personal memory instead of the team's: the project's private memory folder (memory/ but team/), synced with ~/SLUG on the server, which only your tokens reach"

// registerPersonal adds --personal to the commands that work on a folder
// or a repository's memory.
func (c *commonFlags) registerPersonal(fs *flag.FlagSet, usage string) {
	fs.BoolVar(&c.personal, "personal", false, usage)
}

// registerConnection adds the flags that say which server, token and
// repository to talk to, the configuration file and the log level.
func (c *commonFlags) registerConnection(fs *flag.FlagSet) {
	fs.StringVar(&c.server, "server", "", "teammem server `URL`, e.g. https://memory.example.com")
	fs.StringVar(&c.token, "token", "", "bearer `TOKEN` (prefer --token-file or TEAMMEM_TOKEN: flags show in ps)")
	fs.StringVar(&c.tokenFile, "token-file", "", "read the bearer token from `FILE` (re-read on every request)")
	fs.StringVar(&c.repo, "repo", "", "repository `SLUG` such as acme/api (default: from the git remote)")
	fs.StringVar(&c.repoDir, "repo-dir", "", "git working tree `DIR` (default: the working directory)")
	fs.StringVar(&c.logLevel, "log-level", "info", "log `LEVEL`: debug, info, warn or error")
	fs.StringVar(&c.config, "config", "", "the agent's configuration `FILE` (default: agent.toml in the user's config directory, teammem/)")
}

// registerStale adds --stale-after.
func (c *commonFlags) registerStale(fs *flag.FlagSet) {
	fs.Func("stale-after", "mark team memories nobody changed or confirmed for more than `DAYS` days (90 or 90d; default off)", c.parseStaleAfter)
}

// parseStaleAfter reads --stale-after: a number of days, with or without
// a final d.
func (c *commonFlags) parseStaleAfter(v string) error {
	days, err := strconv.Atoi(strings.TrimSuffix(v, "d"))
	if err != nil || days < 1 || days > 100_000 {
		return fmt.Errorf("want a number of days, such as 90 or 90d")
	}
	c.staleAfter = time.Duration(days) * 24 * time.Hour
	return nil
}

// session is what a sync subcommand resolved from its flags: the repo,
// the folders, the server and how to talk to the user.
type session struct {
	e        *cliEnv
	flags    commonFlags
	log      *slog.Logger
	out      *printer
	slug     string
	dir      string // the team folder, absolute, without trailing separator
	stateDir string
	server   string // the server URL as given, the journal's identity
	// checkouts lists the checkouts that get the team memory block (nil
	// for personal memory: Claude Code loads the private MEMORY.md
	// itself), and targets the assistants' files of each that hold it.
	checkouts func() ([]string, error)
	targets   func(checkout string) []assistants.Assistant
	// exclude names the folders below dir that are not synced: the team
	// folder, for personal memory.
	exclude []string
	// memDir is the memory folder whose consolidation lock holds dir's
	// pushes ("" for none; see memoryFolderOf).
	memDir string
	// holdBlocks, when set, is held around each update of the blocks
	// (agent.LockBlocks: run on the registered checkouts).
	holdBlocks func() (func(), error)
	// orgs are the org memories whose indexes the block carries (synced
	// by engines of their own).
	orgs []agent.OrgFolder
	// orgChanged receives when an engine of orgs pulled (run only).
	orgChanged <-chan struct{}
	// tokenSaidElsewhere leaves the token's expiry out of run's reports:
	// an org memory's engine shares the token of the checkouts whose
	// engines say it.
	tokenSaidElsewhere bool
	// reported, when set, is told every report of run's engine.
	reported func(agent.Report)
	// config is the configuration file (agent.toml), "" when there is no
	// place for one; targets follow it.
	config string
	// lastReport is what run printed last (see onRunReport); run's
	// reports arrive on the engine's goroutine only.
	lastReport string
}

// newSession resolves the common flags into a session.
func newSession(e *cliEnv, name string, c commonFlags) (*session, error) {
	log, err := newLogger(e, c.logLevel)
	if err != nil {
		return nil, err
	}
	uc, err := c.applyConfig(e)
	if err != nil {
		return nil, err
	}
	if c.orRegistered && !c.noRepo {
		if err := useRegistered(e, &c, uc); err != nil {
			return nil, err
		}
	}
	s := &session{e: e, flags: c, log: log, out: newPrinter(e, name, c.json), server: strings.TrimRight(c.server, "/")}
	if c.noRepo { // a command about no one repository (search --all)
		return s, nil
	}
	if s.slug, err = resolveSlug(e, c); err != nil {
		return nil, err
	}
	if c.personal {
		if protocol.IsOrgMemory(s.slug) {
			return nil, fmt.Errorf("the repository %s is an org memory: it has no personal memory", s.slug)
		}
		if protocol.IsAgentMemorySlug(s.slug) {
			return nil, fmt.Errorf("the repository %s is named like agent memory (~/%s/…): its personal memory is not synced", s.slug, strings.SplitN(s.slug, "/", 2)[0])
		}
		s.slug = protocol.MyPersonalRepo(s.slug)
	}
	if s.dir, s.exclude, err = resolveFolder(e, c); err != nil {
		return nil, err
	}
	s.memDir = memoryFolderOf(s.dir, c.personal)
	if name == "seed" { // seed keeps no journal: it needs no state directory (nor a home)
		return s, nil
	}
	if s.stateDir, err = resolveStateDir(e, c); err != nil {
		return nil, err
	}
	if !c.personal {
		s.checkouts = checkoutLister(e, c, s.slug)
	}
	targets, err := chooseTargets(e, c, uc)
	if err != nil {
		return nil, err
	}
	if path, err := c.configPath(e); err == nil {
		s.config = path
	}
	s.targets = liveTargets(e, c, s.config, targets)
	return s, nil
}

// liveTargets is chooseTargets as the configuration file at path says at
// each call (read again only when it changed), so that `add --assistants`
// or an edit of agent.toml reaches a running engine at its next update of
// the blocks; first is the choice made at the start. --assistants given to
// the command fixes the choice, and a file that cannot be read or names an
// unknown assistant keeps the last one. For one goroutine at a time.
func liveTargets(e *cliEnv, c commonFlags, path string, first []assistants.Assistant) func(string) []assistants.Assistant {
	if c.assistants != "" || path == "" {
		return func(string) []assistants.Assistant { return first }
	}
	conf := userconfig.NewReloader(path)
	last := first
	return func(string) []assistants.Assistant {
		if uc, changed, err := conf.Load(); err == nil && changed {
			if ts, err := chooseTargets(e, c, uc); err == nil {
				last = ts
			}
		}
		return last
	}
}

// mcpInstalled reports whether assistant a has the teammem MCP server in
// its user configuration (mcp install).
func (s *session) mcpInstalled(a assistants.Assistant) bool {
	return mcpinstall.Installed(a.Name, s.e.assistantsEnv())
}

// assistantsEnv is where the user's assistants keep their files.
func (e *cliEnv) assistantsEnv() assistants.Env {
	return assistants.Env{Home: e.Home, Getenv: e.Getenv, GOOS: runtime.GOOS}
}

// chooseTargets returns the assistants whose files get the block in the
// checkout at --repo-dir (or the working directory): --assistants, else
// that checkout's assistants in agent.toml, else agent.toml's, else those
// assistants.Detect finds.
func chooseTargets(e *cliEnv, c commonFlags, uc userconfig.Config) ([]assistants.Assistant, error) {
	if c.assistants != "" {
		ts, err := assistants.Parse(c.assistants)
		if err != nil {
			return nil, errUsage("--assistants: %v", err)
		}
		return ts, nil
	}
	names := uc.Assistants
	if dir, err := repoDir(e, c); err == nil {
		if root, err := gitremote.FindRepo(dir); err == nil {
			dir = root
		}
		for _, co := range uc.Checkouts {
			if co.Path == dir && len(co.Assistants) > 0 {
				names = co.Assistants
			}
		}
	}
	if len(names) == 0 {
		return assistants.Detect(e.assistantsEnv()), nil
	}
	ts, err := assistants.Parse(strings.Join(names, ","))
	if err != nil {
		return nil, fmt.Errorf("agent.toml: assistants: %w", err)
	}
	return ts, nil
}

// checkoutLister lists the checkouts that get the team memory block: the
// one at --repo-dir (or the working directory) with its worktrees,
// trusted to be the repo's when --repo-dir was given or the team folder
// was found from it.
func checkoutLister(e *cliEnv, c commonFlags, slug string) func() ([]string, error) {
	return func() ([]string, error) {
		dir, err := repoDir(e, c)
		if err != nil {
			return nil, err
		}
		return teamblock.Checkouts(dir, slug, c.repoDir != "" || c.dir == "")
	}
}

// newLogger builds the text logger on stderr at the named level.
func newLogger(e *cliEnv, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, errUsage("--log-level %q: want debug, info, warn or error", level)
	}
	return slog.New(slog.NewTextHandler(e.Stderr, &slog.HandlerOptions{Level: l})), nil
}

// repoDir returns the git working tree to look at, absolute.
func repoDir(e *cliEnv, c commonFlags) (string, error) {
	d, err := filepath.Abs(orDefault(c.repoDir, e.Cwd))
	if err != nil {
		return "", fmt.Errorf("resolve --repo-dir: %w", err)
	}
	return d, nil
}

// resolveSlug returns --repo canonicalised, else the slug of the git remote
// of the repository directory.
func resolveSlug(e *cliEnv, c commonFlags) (string, error) {
	if c.repo != "" {
		slug, err := protocol.CanonicalSlug(c.repo)
		if err != nil {
			return "", errUsage("--repo %q is not a repository slug such as acme/api", c.repo)
		}
		return slug, nil
	}
	dir, err := repoDir(e, c)
	if err != nil {
		return "", err
	}
	slug, err := gitremote.Slug(dir)
	if err != nil {
		return "", fmt.Errorf("cannot tell which repository %s belongs to (%w); pass --repo SLUG", dir, err)
	}
	return slug, nil
}

// resolveFolder returns the folder the session syncs and the folders below
// it that it leaves out: --dir, else memcore's team folder of the
// repository directory; with --personal, the private memory folder that
// holds it (where the user's settings put it: autoMemoryDirectory),
// without the team folder.
func resolveFolder(e *cliEnv, c commonFlags) (dir string, exclude []string, err error) {
	if c.dir != "" {
		d, err := filepath.Abs(c.dir)
		if err != nil {
			return "", nil, fmt.Errorf("resolve --dir: %w", err)
		}
		if c.personal {
			exclude = []string{personalExclude}
		}
		return filepath.Clean(d), exclude, nil
	}
	if e.Home == "" { // memcore would resolve "~" against the working directory
		return "", nil, errUsage("no home directory: pass --dir or set HOME")
	}
	repo, err := repoDir(e, c)
	if err != nil {
		return "", nil, err
	}
	p, err := memcore.ResolvePaths(memcore.Env{Home: e.Home, Cwd: repo, Getenv: e.Getenv, PID: os.Getpid(),
		CaseInsensitive: runtime.GOOS == "darwin" || runtime.GOOS == "windows"})
	if err != nil {
		return "", nil, fmt.Errorf("find the memory folders of %s: %w; pass --dir DIR", repo, err)
	}
	team := filepath.Clean(p.TeamDir)
	if !c.personal {
		return team, nil, nil
	}
	mem := filepath.Clean(p.AutoMemDir)
	if filepath.Dir(team) != mem {
		return "", nil, fmt.Errorf("the team folder %s is not inside the private memory folder %s; pass --dir DIR", team, mem)
	}
	return mem, []string{filepath.Base(team)}, nil
}

// personalExclude is the team folder's name inside the private memory
// folder: personal memory never syncs it.
const personalExclude = "team"

// memoryFolderOf returns the memory folder whose consolidation lock
// (<folder>/.consolidate-lock) holds the pushes of dir: the private memory
// folder itself for personal memory, the folder that holds a team folder
// (named team/, as Claude Code lays it out), "" for any other folder.
func memoryFolderOf(dir string, personal bool) string {
	switch {
	case personal:
		return dir
	case filepath.Base(dir) == personalExclude:
		return filepath.Dir(dir)
	}
	return ""
}

// resolveStateDir returns --state-dir, else the user's state directory.
func resolveStateDir(e *cliEnv, c commonFlags) (string, error) {
	if c.stateDir != "" {
		return filepath.Abs(c.stateDir)
	}
	d, err := userconfig.StateDir(e.Getenv, e.Home, runtime.GOOS)
	if err != nil {
		return "", fmt.Errorf("find the state directory: %w; pass --state-dir DIR", err)
	}
	return d, nil
}

// newClient returns the SDK client for --server with the token options.
func (s *session) newClient() (*client.Client, error) {
	if s.server == "" {
		return nil, errUsage("no server: pass --server URL or set TEAMMEM_SERVER")
	}
	host, _ := os.Hostname()
	opts := client.Options{BaseURL: s.server, UserAgent: userAgent(), Machine: host}
	switch {
	case s.flags.token != "" && s.flags.tokenFile != "":
		return nil, errUsage("pass --token or --token-file, not both")
	case s.flags.token != "":
		opts.Token = strings.TrimSpace(s.flags.token)
	case s.flags.tokenFile != "":
		opts.TokenSource = tokenFileSource(s.flags.tokenFile)
		if _, err := opts.TokenSource(context.Background()); err != nil {
			return nil, err
		}
	case s.e != nil:
		opts.TokenSource = signInSource(s.e, s.flags, s.server) // a browser sign-in, renewed silently
	}
	c, err := client.New(opts)
	if err != nil {
		return nil, errUsage("--server %q: %v", s.server, err)
	}
	return c, nil
}

// headReader returns what reads the HEAD commit of the checkout the
// session's repository was found from (--repo-dir, else the working
// directory), which its pushes name in their provenance; nil when that
// folder is not a checkout of the session's repository.
func (s *session) headReader() func() string {
	dir, err := repoDir(s.e, s.flags)
	if err != nil {
		return nil
	}
	slug, err := gitremote.Slug(dir)
	if err != nil {
		return nil
	}
	if s.flags.personal {
		slug = protocol.MyPersonalRepo(slug)
	}
	if slug != s.slug {
		return nil
	}
	return func() string {
		head, _ := gitremote.Head(dir)
		return head
	}
}

// userAgent names this build in requests.
func userAgent() string { return "teammem-agent/" + buildinfo.Version(version) }

// tokenFileSource reads the token from path on every request, so that a
// rotated token is picked up without a restart.
func tokenFileSource(path string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("read token file: %w", err)
		}
		tok := strings.TrimSpace(string(data))
		if tok == "" {
			return "", fmt.Errorf("token file %s is empty", path)
		}
		return tok, nil
	}
}

// explain turns an error of a sync into one sentence a person can act on.
func (s *session) explain(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, client.ErrUnauthorized) && s.flags.token == "" && s.flags.tokenFile == "":
		return fmt.Errorf("the server %s wants a token and none was given: log in with `teammem-agent login --server %s` (the token on stdin), or pass --token-file FILE or TEAMMEM_TOKEN", s.server, s.server)
	case errors.Is(err, client.ErrUnauthorized) && s.expired():
		exp, _ := s.tokenExpiry()
		return fmt.Errorf("the token %s (the server %s refuses it)", agent.TokenNote(exp, time.Now(), s.relogin()), s.server)
	case errors.Is(err, client.ErrUnauthorized):
		return fmt.Errorf("the server %s refused the token%s: get a new one from its admin (teammem-server token create) and log in again with `teammem-agent login --server %s`", s.server, serverSaid(err), s.server)
	case errors.Is(err, client.ErrForbidden) && s.flags.personal:
		return fmt.Errorf("the server %s refused your personal memory %s%s: only tokens of your own subject reach it", s.server, s.slug, serverSaid(err))
	case errors.Is(err, client.ErrForbidden):
		return fmt.Errorf("the token has no grant for %s on %s%s: ask an admin for a token with the grant %s:write (or %s:read to only read)", s.slug, s.server, serverSaid(err), s.slug, s.slug)
	case errors.Is(err, client.ErrNetwork), errors.Is(err, client.ErrTimeout):
		return fmt.Errorf("cannot reach the server %s: %w", s.server, err)
	case errors.Is(err, agent.ErrFolderUnavailable):
		return fmt.Errorf("the team folder %s cannot be read: %w", s.dir, err)
	}
	return err
}

// serverSaid quotes the message of the server's answer in err, "" when
// there is none.
func serverSaid(err error) string {
	var ae *client.APIError
	if errors.As(err, &ae) && ae.Message != "" {
		return fmt.Sprintf(" (it said: %q)", ae.Message)
	}
	return ""
}
