package main

import (
	"context"
	"strings"
	"time"

	"github.com/teammem/teammem/client/agent"
)

func init() {
	register(command{Name: "run", Summary: "pull, then watch the team folder and keep it in step until stopped", Run: runDaemon})
}

// runFlags are the flags of run beyond the common ones.
type runFlags struct {
	debounce, maxDelay, poll, shutdown time.Duration
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
	var rf runFlags
	fs.DurationVar(&rf.debounce, "debounce", 2*time.Second, "push once the folder has been quiet this `long`")
	fs.DurationVar(&rf.maxDelay, "max-delay", 10*time.Second, "push no later than this `long` while the folder keeps changing")
	fs.DurationVar(&rf.poll, "poll", agent.DefaultPoll, "pull the server this `often`")
	fs.DurationVar(&rf.shutdown, "shutdown-timeout", agent.DefaultShutdownTimeout, "on SIGINT/SIGTERM, try this `long` to push what is pending")
	fs.BoolVar(&rf.allowMassDelete, "allow-mass-delete", false, "allow one push to soft-delete more than half of the repo's entries")
	if err := parseFlags(fs, args, e.Getenv); err != nil {
		return helpOK(err)
	}
	if rf.debounce <= 0 || rf.maxDelay < rf.debounce || rf.poll <= 0 {
		return errUsage("run: --debounce and --poll must be positive and --max-delay at least --debounce")
	}
	s, err := newSession(e, "run", c)
	if err != nil {
		return err
	}
	sy, err := openSyncer(s, engineOpts{watch: true, debounce: rf.debounce, maxDelay: rf.maxDelay, poll: rf.poll,
		shutdownTimeout: rf.shutdown, allowMassDelete: rf.allowMassDelete, onReport: s.onRunReport})
	if err != nil {
		return s.explain(err)
	}
	defer sy.Close()
	s.log.Info("syncing", "repo", s.slug, "dir", s.dir, "server", s.server, "journal", sy.journal.Path())
	if err := sy.eng.Run(ctx); err != nil {
		return s.explain(err)
	}
	s.log.Info("stopped", "repo", s.slug)
	return nil
}

// onRunReport prints one cycle of run: a JSON line with --json, text
// otherwise; a failed cycle is also logged on stderr (the engine retries).
// A cycle that moved nothing and says what the previous one said (a
// deletion held back by a rail, a file skipped, the same failure) is not
// repeated every poll.
func (s *session) onRunReport(r agent.Report) {
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
}

// repeatKey identifies a report that moved nothing by what it says; it is
// "" for a report that moved something (never suppressed).
func repeatKey(r agent.Report, err error) string {
	if len(r.Pulled)+len(r.Pushed)+len(r.Deleted)+len(r.Conflicts) > 0 {
		return ""
	}
	var b strings.Builder
	for _, s := range r.Skipped {
		b.WriteString(s.String() + "\n")
	}
	key := b.String() + "\x00" + strings.Join(r.Warnings, "\n") + "\x00" + strings.Join(r.Block, "\n")
	if err != nil {
		key += "\x00" + err.Error()
	}
	return key
}
