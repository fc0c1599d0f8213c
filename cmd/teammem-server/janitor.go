package main

import (
	"context"
	"crypto/ed25519"
	"log/slog"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/audit"
)

// janitorInterval is how often old tombstones are purged.
const janitorInterval = time.Hour

// runJanitor purges tombstones older than retention at start and then every
// janitorInterval until ctx is done. Clients that last synced before a
// purge get 410 since_too_old and pull in full, so deletions still reach
// them. Several replicas may run it at once: purging is idempotent.
func runJanitor(ctx context.Context, store server.Store, retention time.Duration, log *slog.Logger) {
	if retention <= 0 {
		return
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n, err := store.PurgeTombstones(ctx, time.Now().Add(-retention))
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("purge tombstones failed", "error", err)
		case n > 0:
			log.Info("purged tombstones", "count", n, "retention", retention)
		}
		t.Reset(janitorInterval)
	}
}

// runAuditUpkeep signs every audit chain's head with key every interval
// (and at start) and, with a retention, drops the entries older than it
// (audit.Upkeep). Several replicas may run it at once: a head signed
// twice is kept once, and pruning is idempotent.
func runAuditUpkeep(ctx context.Context, log server.AuditLog, key ed25519.PrivateKey, retention, interval time.Duration, logger *slog.Logger) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n, pruned, err := audit.Upkeep(ctx, log, key, retention, time.Now())
		switch {
		case err != nil && ctx.Err() == nil:
			logger.Warn("audit log upkeep failed", "error", err)
		case n > 0 || pruned > 0:
			logger.Info("audit log checkpointed", "chains", n, "pruned_entries", pruned, "retention", retention)
		}
		t.Reset(interval)
	}
}
