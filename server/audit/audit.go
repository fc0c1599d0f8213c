// Package audit keeps the audit log's promises over a store's
// server.AuditLog: it signs the chains' heads (checkpoints), verifies the
// chains against them, exports them as JSON lines, and coalesces the
// records of what was served to whom.
package audit

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/teammem/teammem/server"
)

// KeyID names a public key in a checkpoint: the hex of its first 8 bytes.
func KeyID(pub ed25519.PublicKey) string { return hex.EncodeToString(pub[:8]) }

// Checkpoint signs, with key, the head of every chain that grew since its
// last checkpoint, at now. It returns how many it saved. Several replicas
// may checkpoint at once: a chain checkpointed twice at one Seq keeps the
// first.
func Checkpoint(ctx context.Context, log server.AuditLog, key ed25519.PrivateKey, now time.Time) (int, error) {
	heads, err := log.AuditHeads(ctx)
	if err != nil {
		return 0, err
	}
	cps, err := log.AuditCheckpoints(ctx)
	if err != nil {
		return 0, err
	}
	last := map[string]int64{}
	for _, c := range cps {
		last[c.Chain] = max(last[c.Chain], c.Seq)
	}
	pub := key.Public().(ed25519.PublicKey)
	n := 0
	for _, h := range heads {
		if h.Seq <= last[h.Chain] {
			continue
		}
		c := server.AuditCheckpoint{Chain: h.Chain, Seq: h.Seq, Hash: h.Hash, At: now.UTC().Truncate(time.Microsecond), KeyID: KeyID(pub)}
		c.Signature = ed25519.Sign(key, server.CheckpointMessage(c))
		if err := log.SaveAuditCheckpoint(ctx, c); err != nil {
			return n, fmt.Errorf("checkpoint chain %q: %w", h.Chain, err)
		}
		n++
	}
	return n, nil
}

// Upkeep checkpoints every chain and, with a retention, prunes what is
// older than it: each chain then starts at its newest checkpoint made
// before now - retention.
func Upkeep(ctx context.Context, log server.AuditLog, key ed25519.PrivateKey, retention time.Duration, now time.Time) (checkpoints int, pruned int64, err error) {
	if key != nil {
		if checkpoints, err = Checkpoint(ctx, log, key, now); err != nil {
			return checkpoints, 0, err
		}
	}
	if retention > 0 {
		pruned, err = log.PruneAudit(ctx, now.Add(-retention))
	}
	return checkpoints, pruned, err
}
