package postgres

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/teammem/teammem/server"
)

var _ server.AuditLog = (*DB)(nil)

// appendAuditSQL appends records to one chain (migration 14's
// audit_append): it locks the chain's head row until the transaction
// ends, links each record after the one before with server.AuditHash
// computed by the database, and moves the head. So a group's records are
// queued in its pipelined batch, one statement a chain, without reading
// the head first.
const appendAuditSQL = `SELECT audit_append($1, $2, $3, $4)`

// queueAudit queues the appends of recs, in order, in b: they run in the
// transaction b is sent in (a group of writes, an administrative act),
// one statement per chain, the chains in the order they first appear.
func queueAudit(b *pgx.Batch, recs []server.AuditRecord) error {
	type chainRecs struct {
		chain    string
		bodies   [][]byte
		ats      []time.Time
		subjects []string
	}
	// Chains are few (a group's writes are one repository's): a list, no map.
	var chains []chainRecs
	for _, r := range recs {
		body, err := server.AuditBody(r)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(chains, func(c chainRecs) bool { return c.chain == r.Repo })
		if i < 0 {
			i = len(chains)
			chains = append(chains, chainRecs{chain: r.Repo, bodies: make([][]byte, 0, len(recs)),
				ats: make([]time.Time, 0, len(recs)), subjects: make([]string, 0, len(recs))})
		}
		c := &chains[i]
		c.bodies, c.ats, c.subjects = append(c.bodies, body), append(c.ats, r.At.Truncate(time.Microsecond)), append(c.subjects, r.By.Subject)
	}
	for _, c := range chains {
		b.Queue(appendAuditSQL, c.chain, c.bodies, c.ats, c.subjects)
	}
	return nil
}

// appendAuditTx appends recs inside tx.
func appendAuditTx(ctx context.Context, tx pgx.Tx, recs []server.AuditRecord) error {
	b := &pgx.Batch{}
	if err := queueAudit(b, recs); err != nil {
		return err
	}
	return wrap("append audit records", tx.SendBatch(ctx, b).Close())
}

// AppendAudit appends recs in a transaction of their own (server.AuditLog).
func (db *DB) AppendAudit(ctx context.Context, recs []server.AuditRecord) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error { return appendAuditTx(ctx, tx, recs) })
}

// AuditHeads returns every chain's head (server.AuditLog).
func (db *DB) AuditHeads(ctx context.Context) ([]server.AuditHead, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT chain, seq, hash FROM audit_heads ORDER BY chain`)
	if err != nil {
		return nil, wrap("read audit heads", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (server.AuditHead, error) {
		var h server.AuditHead
		err := r.Scan(&h.Chain, &h.Seq, &h.Hash)
		return h, err
	})
	return out, wrap("read audit heads", err)
}

// AuditEntries reads the entries q selects (server.AuditLog). It reads
// without the request bound: an export reads the whole log.
func (db *DB) AuditEntries(ctx context.Context, q server.AuditQuery, visit func(server.AuditEntry) error) error {
	var since *time.Time
	if !q.Since.IsZero() {
		since = &q.Since
	}
	rows, err := db.pool.Query(ctx, `SELECT chain, seq, at, subject, prev, hash, body FROM audit_log
		WHERE ($1 OR chain = $2) AND ($3::timestamptz IS NULL OR at >= $3) AND ($4 = '' OR subject = $4) AND seq > $5
		ORDER BY chain, seq`, q.All, q.Chain, since, q.Subject, q.After)
	if err != nil {
		return wrap("read audit log", err)
	}
	var e server.AuditEntry
	_, err = pgx.ForEachRow(rows, []any{&e.Chain, &e.Seq, &e.At, &e.Subject, &e.Prev, &e.Hash, &e.Body}, func() error {
		e.At = e.At.UTC()
		return visit(e)
	})
	return wrap("read audit log", err)
}

// SaveAuditCheckpoint records c (server.AuditLog).
func (db *DB) SaveAuditCheckpoint(ctx context.Context, c server.AuditCheckpoint) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	_, err := db.pool.Exec(ctx, `INSERT INTO audit_checkpoints (chain, seq, hash, at, key_id, signature) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (chain, seq) DO NOTHING`, c.Chain, c.Seq, c.Hash, c.At, c.KeyID, c.Signature)
	return wrap("save audit checkpoint", err)
}

// AuditCheckpoints returns every checkpoint (server.AuditLog).
func (db *DB) AuditCheckpoints(ctx context.Context) ([]server.AuditCheckpoint, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT chain, seq, hash, at, key_id, signature FROM audit_checkpoints ORDER BY chain, seq`)
	if err != nil {
		return nil, wrap("read audit checkpoints", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (server.AuditCheckpoint, error) {
		var c server.AuditCheckpoint
		err := r.Scan(&c.Chain, &c.Seq, &c.Hash, &c.At, &c.KeyID, &c.Signature)
		c.At = c.At.UTC()
		return c, err
	})
	return out, wrap("read audit checkpoints", err)
}

// pruneAnchors are each chain's anchor: its newest checkpoint before $1.
const pruneAnchors = `(SELECT chain, max(seq) AS seq FROM audit_checkpoints WHERE at < $1 GROUP BY chain)`

// PruneAudit removes each chain's entries up to its anchor and the
// checkpoints older than the anchor, in one transaction (server.AuditLog).
func (db *DB) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var n int64
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM audit_log l USING `+pruneAnchors+` a WHERE l.chain = a.chain AND l.seq <= a.seq`, before)
		if err != nil {
			return wrap("prune audit log", err)
		}
		n = tag.RowsAffected()
		_, err = tx.Exec(ctx, `DELETE FROM audit_checkpoints k USING `+pruneAnchors+` a WHERE k.chain = a.chain AND k.seq < a.seq`, before)
		return wrap("prune audit checkpoints", err)
	})
	return n, err
}

// auditIfChanged appends rec inside tx when tag says a row changed: an
// act that changed nothing (a token recorded again) is not one.
func auditIfChanged(ctx context.Context, tx pgx.Tx, tag pgconn.CommandTag, rec server.AuditRecord) error {
	if tag.RowsAffected() == 0 {
		return nil
	}
	return appendAuditTx(ctx, tx, []server.AuditRecord{rec})
}
