package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/teammem/teammem/client/agent"
	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/userconfig"
	"github.com/teammem/teammem/memcore/protocol"
)

func init() {
	register(command{Name: "run", Summary: "pull, then watch the team folder and keep it in step until stopped", Run: runDaemon})
}

// runFlags are the flags of run beyond the common ones.
type runFlags struct {
	debounce, maxDelay, poll, shutdown time.Duration
	safetyPoll                         time.Duration
	noStream                           bool
	allowMassDelete                    bool
}

// runDaemon is `teammem-agent run`: the engine loop until SIGINT/SIGTERM,
// which cancels ctx; the engine then rescans, pushes what is pending
// (bounded by --shutdown-timeout) and saves the journal, and run releases
// its locks and exits 0.
func runDaemon(ctx context.Context, e *cliEnv, args []string) error {
	fs := newFlagSet("run", "run [--debounce 2s] [--max-delay 10s] [--poll 60s] [flags]", e.Stdout)
	var c commonFlags
	c.register(fs)
	c.registerPersonal(fs, personalUsage)
	var rf runFlags
	fs.DurationVar(&rf.debounce, "debounce", 2*time.Second, "push once the folder has been quiet for this `duration`")
	fs.DurationVar(&rf.maxDelay, "max-delay", 10*time.Second, "push no later than this `duration` while the folder keeps changing")
	fs.DurationVar(&rf.poll, "poll", agent.DefaultPoll, "pull the server every `interval` while its event stream is down")
	fs.DurationVar(&rf.safetyPoll, "safety-poll", agent.DefaultSafetyPoll, "pull the server every `interval` while its event stream is connected")
	fs.BoolVar(&rf.noStream, "no-stream", false, "do not follow the server's event stream; only poll")
	fs.DurationVar(&rf.shutdown, "shutdown-timeout", agent.DefaultShutdownTimeout, "on SIGINT/SIGTERM, try for this `duration` to push what is pending")
	fs.BoolVar(&rf.allowMassDelete, "allow-mass-delete", false, "allow deleting more than half of the repo's entries at once (on the server; locally, files the server lacks without a tombstone)")
	if err := parseFlags(fs, args, e.Getenv); err != nil {
		return helpOK(err)
	}
	if rf.debounce <= 0 || rf.maxDelay < rf.debounce || rf.poll <= 0 || rf.safetyPoll <= 0 {
		return errUsage("run: --debounce, --poll and --safety-poll must be positive and --max-delay at least --debounce")
	}
	if c.repo == "" && c.repoDir == "" && c.dir == "" {
		if path, err := c.configPath(e); err == nil {
			if _, err := os.Stat(path); err == nil {
				return runRegistered(ctx, e, c, rf, path)
			}
		}
	}
	s, err := newSession(e, "run", c)
	if err != nil {
		return err
	}
	return s.runner(rf)(ctx)
}

// runner runs the session's engine: lock the folder, pull, then watch and
// push until ctx is cancelled (then flush and return nil).
func (s *session) runner(rf runFlags) agent.Runner {
	return func(ctx context.Context) error {
		sy, err := openSyncer(s, engineOpts{watch: true, debounce: rf.debounce, maxDelay: rf.maxDelay, poll: rf.poll,
			shutdownTimeout: rf.shutdown, allowMassDelete: rf.allowMassDelete, onReport: s.onRunReport,
			follow: !rf.noStream, safetyPoll: rf.safetyPoll})
		if err != nil {
			return s.explain(err)
		}
		defer sy.Close()
		s.log.Info("syncing", "repo", s.slug, "dir", s.dir, "server", s.server, "journal", sy.Journal.Path())
		if err := sy.Engine.Run(ctx); err != nil {
			return s.explain(err)
		}
		s.log.Info("stopped", "repo", s.slug)
		return nil
	}
}

// runRegistered is run without --repo, --repo-dir or --dir when the
// configuration file exists: one engine per team folder of the registered
// checkouts (checkouts sharing a folder share its engine), all in this
// process, following `add` and `remove` without a restart.
func runRegistered(ctx context.Context, e *cliEnv, c commonFlags, rf runFlags, path string) error {
	log, err := newLogger(e, c.logLevel)
	if err != nil {
		return err
	}
	out := newPrinter(e, "run", c.json)
	conf := userconfig.NewReloader(path)
	var runners map[string]agent.Runner
	var uc userconfig.Config
	am := &agentMemSync{e: e, c: c}
	nudges := &orgNudges{}
	load := func() (map[string]agent.Runner, error) {
		next, changed, err := conf.Load()
		if err != nil {
			return runners, err
		}
		if changed {
			uc = next
		} else if !am.changed() { // an agent memory appeared here or on the server
			return runners, nil
		}
		runners = registeredRunners(e, c, rf, path, uc, out, log, am, nudges)
		log.Info("syncing the registered checkouts", "config", path, "folders", len(runners), "checkouts", len(uc.Checkouts))
		if len(uc.Checkouts) == 0 {
			log.Warn("no checkout is registered: add one with teammem-agent add [DIR]")
		}
		return runners, nil
	}
	agent.Supervise(ctx, load, agent.SuperviseEvery, agent.SuperviseRetry, heldOnce(log))
	return nil
}

// heldOnce reports the end of a registered folder's engine: a failure is
// logged at every attempt, but a folder another agent holds is said once
// per holder (this agent keeps syncing the others and takes the folder
// over once it is free; status names the holder).
func heldOnce(log *slog.Logger) func(key string, err error) {
	var mu sync.Mutex
	said := map[string]string{} // folder → the holding message said last
	return func(key string, err error) {
		dir := agent.RunnerFolder(key)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err == nil:
		case errors.Is(err, agent.ErrFolderLocked):
			if said[dir] != err.Error() {
				said[dir] = err.Error()
				log.Warn("another teammem-agent holds this folder: syncing the others, and this one once it is free", "dir", dir, "err", err, "retry", agent.SuperviseRetry)
			}
			return
		default:
			log.Error("cannot sync; trying again later", "dir", dir, "err", err, "retry", agent.SuperviseRetry)
		}
		delete(said, dir)
	}
}

// registeredRunners builds one runner per team folder of uc's checkouts,
// one per org memory of their namespaces (once however many checkouts
// share it: removing the last stops it), one per private memory folder of those whose personal memory is synced
// (Config.PersonalFor), and one per agent memory folder am finds, keyed by
// agent.RunnerKey. A checkout that
// cannot be resolved is logged and left out. Each engine lists its block's checkouts among those the
// configuration at path still registers, read again each time, under the
// blocks' lock (agent.LockBlocks), which `remove` holds too: a removed
// checkout's block is never written back.
func registeredRunners(e *cliEnv, c commonFlags, rf runFlags, path string, uc userconfig.Config, out *printer, log *slog.Logger, am *agentMemSync, nudges *orgNudges) map[string]agent.Runner {
	type group struct {
		s     *session
		paths []string
		lists []func() ([]string, error)
		// targets are the assistants of each of paths.
		targets []func(string) []assistants.Assistant
	}
	groups := map[string]*group{}
	var order []string
	var personal []personalCheckout
	for _, co := range uc.Checkouts {
		cc := c
		cc.repoDir, cc.repo = co.Path, co.Repo
		folders := []commonFlags{cc}
		if uc.PersonalFor(co) && !c.personal {
			personal := cc
			personal.personal = true
			folders = append(folders, personal)
		}
		for _, f := range folders {
			s, err := newSession(e, "run", f)
			if err != nil {
				log.Error("cannot sync a registered checkout", "checkout", co.Path, "personal", f.personal, "err", err)
				continue
			}
			s.out = out
			if f.personal {
				personal = append(personal, personalCheckout{path: co.Path, slug: strings.TrimPrefix(s.slug, protocol.PersonalMark+"/")})
			}
			g, ok := groups[s.dir]
			if !ok {
				g = &group{s: s}
				groups[s.dir] = g
				order = append(order, s.dir)
			}
			if s.checkouts != nil { // a private memory folder has no block
				g.paths, g.lists, g.targets = append(g.paths, co.Path), append(g.lists, s.checkouts), append(g.targets, s.targets)
			}
		}
	}
	runners := map[string]agent.Runner{}
	orgs := map[string]bool{}
	for _, dir := range order {
		g := groups[dir]
		if len(g.paths) > 0 { // a team folder: its block, under the blocks' lock
			g.s.checkouts, g.s.holdBlocks = stillRegistered(path, g.paths, g.lists), agent.LockBlocks
			g.s.targets = targetsOf(g.lists, g.targets)
			g.s.orgs = orgFoldersOf(e, g.s.slug)
			if len(g.s.orgs) > 0 {
				g.s.orgChanged = nudges.channel(dir, g.s.orgs)
			}
			for _, o := range g.s.orgs { // each namespace's org memory once, with the first checkout's server and token
				if orgs[o.Repo] {
					continue
				}
				orgs[o.Repo] = true
				key, run, err := orgRunner(e, g.s.flags, rf, out, o, nudges)
				if err != nil {
					log.Error("cannot sync an org memory", "repo", o.Repo, "dir", o.Dir, "err", err)
					continue
				}
				runners[key] = run
			}
		}
		runners[agent.RunnerKey(dir, g.s.slug, g.s.server, g.s.flags.token, g.s.flags.tokenFile, g.paths)] = g.s.runner(rf)
	}
	for _, f := range am.folders(uc, personal) {
		key, run, err := f.runner(e, c, rf, out)
		if err != nil {
			log.Error("cannot sync an agent memory", "repo", f.repo, "dir", f.dir, "err", err)
			continue
		}
		runners[key] = run
	}
	return runners
}

// stillRegistered lists the block checkouts (lists[i]) of those of paths
// that the configuration at config still registers, each once.
func stillRegistered(config string, paths []string, lists []func() ([]string, error)) func() ([]string, error) {
	return func() ([]string, error) {
		uc, err := userconfig.Load(config)
		if err != nil {
			return nil, err
		}
		var out []string
		for i, p := range paths {
			if !uc.Has(p) {
				continue
			}
			roots, err := lists[i]()
			if err != nil {
				return nil, err
			}
			for _, d := range roots {
				if !slices.Contains(out, d) {
					out = append(out, d)
				}
			}
		}
		return out, nil
	}
}

// onRunReport prints one cycle of run: a JSON line with --json, text
// otherwise; a failed cycle is also logged on stderr (the engine retries).
// A cycle that moved nothing and says what the previous one said (a
// deletion held back by a rail, a file skipped, the same failure) is not
// repeated every poll.
func (s *session) onRunReport(r agent.Report) {
	if s.tokenSaidElsewhere {
		r.Token = ""
	}
	if s.reported != nil {
		s.reported(r)
	}
	err := s.explain(r.Err)
	key := repeatKey(r, err)
	if key != "" && key == s.lastReport {
		return
	}
	s.lastReport = key
	s.out.report(s.slug, "sync", r, err)
	if err != nil {
		s.log.Warn("sync failed; retrying", "err", err)
	}
	if r.Token != "" {
		s.log.Warn(r.Token, "repo", s.slug)
	}
}

// repeatKey identifies a report that moved nothing by what it says; it is
// "" for a report that moved something (never suppressed).
func repeatKey(r agent.Report, err error) string {
	if len(r.Pulled)+len(r.Pushed)+len(r.Deleted)+len(r.Conflicts)+len(r.Rejections) > 0 || r.Token != "" {
		return ""
	}
	var b strings.Builder
	for _, s := range r.Skipped {
		b.WriteString(s.String() + "\n")
	}
	key := b.String() + "\x00" + strings.Join(r.Warnings, "\n") + "\x00" + strings.Join(r.Block, "\n") +
		"\x00" + strings.Join(r.Held, "\n") + fmt.Sprintf("\x00%v", r.Awaiting)
	if c := r.Consolidation; c != nil {
		key += fmt.Sprintf("\x00%d %s %s", c.PID, c.Since, c.Ended)
	}
	if err != nil {
		key += "\x00" + err.Error()
	}
	return key
}

// targetsOf chooses a checkout's assistants by the registration whose
// block checkouts (lists[i]) hold it, the first one's otherwise: checkouts
// of one team folder registered with different assistants keep each their
// own.
func targetsOf(lists []func() ([]string, error), targets []func(string) []assistants.Assistant) func(string) []assistants.Assistant {
	if len(targets) == 1 { // one registration: nothing to choose, no checkout listed again per update
		return targets[0]
	}
	return func(co string) []assistants.Assistant {
		for i, list := range lists {
			if roots, err := list(); err == nil && slices.Contains(roots, co) {
				return targets[i](co)
			}
		}
		return targets[0](co)
	}
}
