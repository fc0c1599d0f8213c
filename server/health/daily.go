package health

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/teammem/teammem/server"
)

// DailyPrincipal is who the daily tidy proposes as.
var DailyPrincipal = server.Principal{Subject: "teammem-server/daily-tidy", Credential: "none",
	Grants: []server.Grant{{Glob: []string{"**"}, Perm: server.PermAdmin}}}

// Daily proposes, once every Every (a day by default), a tidy of each
// repository whose DailyTidy setting is on, through the same path as
// POST /api/v1/tidy: one proposal for review, never a write. Replicas
// on one database each run it; the store's claim lets one of them
// propose per repository and period.
type Daily struct {
	Checker *Checker
	Every   time.Duration
	Log     *slog.Logger
}

// Run proposes every Every until ctx ends.
func (d *Daily) Run(ctx context.Context) {
	tick := time.NewTicker(d.every())
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			d.Once(ctx)
		}
	}
}

func (d *Daily) every() time.Duration {
	if d.Every <= 0 {
		return 24 * time.Hour
	}
	return d.Every
}

// Once runs one round: it returns the proposals made, by repository.
func (d *Daily) Once(ctx context.Context) map[string]string {
	up := d.Checker.Upkeep
	if up == nil {
		return nil
	}
	repos, err := up.DailyTidyRepos(ctx)
	if err != nil {
		d.log().Warn("daily tidy: list repositories", "err", err)
		return nil
	}
	now := time.Now
	if d.Checker.Now != nil {
		now = d.Checker.Now
	}
	made := map[string]string{}
	for _, repo := range repos {
		// A claim a little short of the period lets the next round
		// claim again whatever the tick's drift.
		ok, err := up.ClaimDailyTidy(ctx, repo, now().UTC(), d.every()-d.every()/10)
		if err != nil || !ok {
			continue
		}
		id, plan, err := d.Checker.Propose(ctx, DailyPrincipal, repo, "daily", Selection{})
		switch {
		case errors.Is(err, server.ErrNotImplemented):
			d.log().Info("daily tidy: no review of proposals on this server; skipped", "repo", repo)
		case err != nil:
			d.log().Warn("daily tidy", "repo", repo, "err", err)
		case id != "":
			made[repo] = id
			d.log().Info("daily tidy proposed", "repo", repo, "proposal", id, "changes", len(plan.Changes))
		}
	}
	return made
}

func (d *Daily) log() *slog.Logger {
	if d.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return d.Log
}
