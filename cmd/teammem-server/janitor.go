package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
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
	every(ctx, janitorInterval, func() {
		n, err := store.PurgeTombstones(ctx, time.Now().Add(-retention))
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("purge tombstones failed", "error", err)
		case n > 0:
			log.Info("purged tombstones", "count", n, "retention", retention)
		}
	})
}

// every runs fn at once and then every interval until ctx is done.
func every(ctx context.Context, interval time.Duration, fn func()) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fn()
		t.Reset(interval)
	}
}

// runAuditUpkeep signs every audit chain's head with key every interval
// (and at start) and, with a retention, drops the entries older than it
// (audit.Upkeep). Several replicas may run it at once: a head signed
// twice is kept once, and pruning is idempotent.
func runAuditUpkeep(ctx context.Context, log server.AuditLog, key ed25519.PrivateKey, retention, interval time.Duration, logger *slog.Logger) {
	every(ctx, interval, func() {
		now := time.Now()
		n, pruned, err := audit.Upkeep(ctx, log, key, retention, now)
		if sl, ok := log.(server.ServedLog); ok && retention > 0 && err == nil {
			_, err = sl.PruneServed(ctx, now.Add(-retention))
		}
		switch {
		case err != nil && ctx.Err() == nil:
			logger.Warn("audit log upkeep failed", "error", err)
		case n > 0 || pruned > 0:
			logger.Info("audit log checkpointed", "chains", n, "pruned_entries", pruned, "retention", retention)
		}
	})
}

// servedFlushInterval is how often a replica saves the served records it
// coalesced: a crash loses at most this much of them.
const servedFlushInterval = time.Minute

// replicaName names this process among the replicas saving served
// records: host, process id and a random part (a restarted process is a
// new replica).
func replicaName() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}
