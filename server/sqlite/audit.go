package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/teammem/teammem/server"
)

var (
	_ server.AuditLog = (*DB)(nil)
	_ server.AuditLog = AuditAt("")
)

// The statements of an append, prepared with the write path's.
const (
	auditHeadSQL   = `SELECT seq, hash FROM audit_heads WHERE chain = ?`
	auditInsertSQL = `INSERT INTO audit_log (chain, seq, at, subject, prev, hash, body) VALUES (?, ?, ?, ?, ?, ?, ?)`
	auditMoveSQL   = `INSERT INTO audit_heads (chain, seq, hash) VALUES (?, ?, ?)
		ON CONFLICT (chain) DO UPDATE SET seq = excluded.seq, hash = excluded.hash`
)

// auditAppender appends records inside one transaction: it reads each
// chain's head once, links the records after it, and saves the heads it
// moved once, at the end (save). SQLite has one writer at a time, so a
// head read here is the head when the transaction commits.
type auditAppender struct {
	tx    sqlExec
	heads map[string]*server.AuditHead
	moved map[string]bool
}

func newAuditAppender(tx sqlExec) *auditAppender {
	return &auditAppender{tx: tx, heads: map[string]*server.AuditHead{}, moved: map[string]bool{}}
}

// appendAudit appends recs, in order, each to its chain, inside tx: a
// transaction of its own.
func appendAudit(ctx context.Context, tx sqlExec, recs []server.AuditRecord) error {
	a := newAuditAppender(tx)
	if err := a.append(ctx, recs); err != nil {
		return err
	}
	return a.save(ctx)
}

// append appends recs, in order, each to its chain; a record that fails
// leaves its chain's head where it was.
func (a *auditAppender) append(ctx context.Context, recs []server.AuditRecord) error {
	for _, r := range recs {
		h, err := a.head(ctx, r.Repo)
		if err != nil {
			return err
		}
		body, err := server.AuditBody(r)
		if err != nil {
			return err
		}
		seq := h.Seq + 1
		hash := server.AuditHash(h.Hash, seq, body)
		_, err = a.tx.ExecContext(ctx, auditInsertSQL, h.Chain, seq, micros(r.At.Truncate(time.Microsecond)), r.By.Subject, h.Hash, hash, body)
		if err != nil {
			return wrap("append audit record", err)
		}
		h.Seq, h.Hash = seq, hash
		a.moved[h.Chain] = true
	}
	return nil
}

// save saves the heads append moved.
func (a *auditAppender) save(ctx context.Context) error {
	for chain := range a.moved {
		h := a.heads[chain]
		if _, err := a.tx.ExecContext(ctx, auditMoveSQL, h.Chain, h.Seq, h.Hash); err != nil {
			return wrap("move audit head", err)
		}
	}
	clear(a.moved)
	return nil
}

// mark returns the heads as they stand, for reset.
func (a *auditAppender) mark() map[string]server.AuditHead {
	m := make(map[string]server.AuditHead, len(a.heads))
	for c, h := range a.heads {
		m[c] = *h
	}
	return m
}

// reset puts the heads back as mark found them: the records appended
// since were rolled back (a savepoint).
func (a *auditAppender) reset(m map[string]server.AuditHead) {
	for c := range a.heads {
		if h, ok := m[c]; ok {
			*a.heads[c] = h
		} else {
			delete(a.heads, c)
			delete(a.moved, c)
		}
	}
}

// head returns chain's head as the transaction sees it.
func (a *auditAppender) head(ctx context.Context, chain string) (*server.AuditHead, error) {
	if h, ok := a.heads[chain]; ok {
		return h, nil
	}
	h := &server.AuditHead{Chain: chain, Hash: []byte{}}
	err := a.tx.QueryRowContext(ctx, auditHeadSQL, chain).Scan(&h.Seq, &h.Hash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("read audit head", err)
	}
	a.heads[chain] = h
	return h, nil
}

// preparedExec runs the statements of an append as the write path's
// prepared statements, bound to its transaction.
type preparedExec map[string]*sql.Stmt

func (p preparedExec) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p[query].ExecContext(ctx, args...)
}

func (p preparedExec) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p[query].QueryRowContext(ctx, args...)
}

// AppendAudit appends recs in the writer's next batch (server.AuditLog).
func (db *DB) AppendAudit(ctx context.Context, recs []server.AuditRecord) error {
	return db.execBatch(ctx, "append audit records", func(ctx context.Context, b *batch) error {
		return b.audit.append(ctx, recs)
	})
}

// AuditHeads returns every chain's head (server.AuditLog).
func (db *DB) AuditHeads(ctx context.Context) ([]server.AuditHead, error) {
	return readAuditHeads(ctx, db.read)
}

// AuditEntries reads the entries q selects (server.AuditLog).
func (db *DB) AuditEntries(ctx context.Context, q server.AuditQuery, visit func(server.AuditEntry) error) error {
	return readAuditEntries(ctx, db.read, q, visit)
}

// SaveAuditCheckpoint records c (server.AuditLog).
func (db *DB) SaveAuditCheckpoint(ctx context.Context, c server.AuditCheckpoint) error {
	return db.exec(ctx, "save audit checkpoint", func(ctx context.Context, tx *sql.Tx) error {
		return saveCheckpoint(ctx, tx, c)
	})
}

// AuditCheckpoints returns every checkpoint (server.AuditLog).
func (db *DB) AuditCheckpoints(ctx context.Context) ([]server.AuditCheckpoint, error) {
	return readCheckpoints(ctx, db.read)
}

// PruneAudit removes what the retention let go (server.AuditLog).
func (db *DB) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := db.exec(ctx, "prune audit log", func(ctx context.Context, tx *sql.Tx) error {
		var err error
		n, err = pruneAudit(ctx, tx, before)
		return err
	})
	return n, err
}

// AuditAt is the server.AuditLog of the database file at the path it
// holds, for the command line: it works beside a running server, as
// TokensAt does.
type AuditAt string

// within runs fn with the file's pool.
func (p AuditAt) within(ctx context.Context, fn func(*sql.DB) error) error {
	pool, err := openExisting(ctx, string(p))
	if err != nil {
		return err
	}
	defer pool.Close()
	return fn(pool)
}

// sqlExec is a transaction: a *sql.Tx of the writer's batch, or the
// connection inTx began one on.
type sqlExec interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// inTx runs fn in an immediate transaction of the file: it takes the
// file's write lock first, so that a chain's head it reads is still the
// head when it commits (a deferred transaction that read first could not
// then write beside the server's).
func (p AuditAt) inTx(ctx context.Context, fn func(sqlExec) error) error {
	return p.within(ctx, func(pool *sql.DB) error {
		conn, err := pool.Conn(ctx)
		if err != nil {
			return wrap("connect", err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			return wrap("begin", err)
		}
		if err := fn(conn); err != nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
			return err
		}
		_, err = conn.ExecContext(ctx, "COMMIT")
		return wrap("commit", err)
	})
}

// AppendAudit appends recs in a transaction of the file.
func (p AuditAt) AppendAudit(ctx context.Context, recs []server.AuditRecord) error {
	return p.inTx(ctx, func(tx sqlExec) error { return appendAudit(ctx, tx, recs) })
}

// AuditHeads reads every chain's head from the file.
func (p AuditAt) AuditHeads(ctx context.Context) (heads []server.AuditHead, err error) {
	err = p.within(ctx, func(pool *sql.DB) error {
		heads, err = readAuditHeads(ctx, pool)
		return err
	})
	return heads, err
}

// AuditEntries reads the entries q selects from the file.
func (p AuditAt) AuditEntries(ctx context.Context, q server.AuditQuery, visit func(server.AuditEntry) error) error {
	return p.within(ctx, func(pool *sql.DB) error { return readAuditEntries(ctx, pool, q, visit) })
}

// SaveAuditCheckpoint records c in the file.
func (p AuditAt) SaveAuditCheckpoint(ctx context.Context, c server.AuditCheckpoint) error {
	return p.inTx(ctx, func(tx sqlExec) error { return saveCheckpoint(ctx, tx, c) })
}

// AuditCheckpoints reads every checkpoint from the file.
func (p AuditAt) AuditCheckpoints(ctx context.Context) (cps []server.AuditCheckpoint, err error) {
	err = p.within(ctx, func(pool *sql.DB) error {
		cps, err = readCheckpoints(ctx, pool)
		return err
	})
	return cps, err
}

// PruneAudit prunes the file's audit log.
func (p AuditAt) PruneAudit(ctx context.Context, before time.Time) (n int64, err error) {
	err = p.inTx(ctx, func(tx sqlExec) error {
		n, err = pruneAudit(ctx, tx, before)
		return err
	})
	return n, err
}

func readAuditHeads(ctx context.Context, q *sql.DB) ([]server.AuditHead, error) {
	rows, err := q.QueryContext(ctx, `SELECT chain, seq, hash FROM audit_heads ORDER BY chain`)
	if err != nil {
		return nil, wrap("read audit heads", err)
	}
	defer rows.Close()
	var out []server.AuditHead
	for rows.Next() {
		var h server.AuditHead
		if err := rows.Scan(&h.Chain, &h.Seq, &h.Hash); err != nil {
			return nil, wrap("read audit heads", err)
		}
		out = append(out, h)
	}
	return out, wrap("read audit heads", rows.Err())
}

func readAuditEntries(ctx context.Context, q *sql.DB, aq server.AuditQuery, visit func(server.AuditEntry) error) error {
	var since int64
	if !aq.Since.IsZero() {
		since = micros(aq.Since)
	}
	rows, err := q.QueryContext(ctx, `SELECT chain, seq, at, subject, prev, hash, body FROM audit_log
		WHERE (?1 OR chain = ?2) AND at >= ?3 AND (?4 = '' OR subject = ?4) AND seq > ?5 ORDER BY chain, seq`,
		aq.All, aq.Chain, since, aq.Subject, aq.After)
	if err != nil {
		return wrap("read audit log", err)
	}
	defer rows.Close()
	for rows.Next() {
		var e server.AuditEntry
		var at int64
		if err := rows.Scan(&e.Chain, &e.Seq, &at, &e.Subject, &e.Prev, &e.Hash, &e.Body); err != nil {
			return wrap("read audit log", err)
		}
		e.At = fromMicros(at)
		if err := visit(e); err != nil {
			return err
		}
	}
	return wrap("read audit log", rows.Err())
}

func saveCheckpoint(ctx context.Context, tx sqlExec, c server.AuditCheckpoint) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO audit_checkpoints (chain, seq, hash, at, key_id, signature) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (chain, seq) DO NOTHING`, c.Chain, c.Seq, c.Hash, micros(c.At), c.KeyID, c.Signature)
	return wrap("save audit checkpoint", err)
}

func readCheckpoints(ctx context.Context, q *sql.DB) ([]server.AuditCheckpoint, error) {
	rows, err := q.QueryContext(ctx, `SELECT chain, seq, hash, at, key_id, signature FROM audit_checkpoints ORDER BY chain, seq`)
	if err != nil {
		return nil, wrap("read audit checkpoints", err)
	}
	defer rows.Close()
	var out []server.AuditCheckpoint
	for rows.Next() {
		var c server.AuditCheckpoint
		var at int64
		if err := rows.Scan(&c.Chain, &c.Seq, &c.Hash, &at, &c.KeyID, &c.Signature); err != nil {
			return nil, wrap("read audit checkpoints", err)
		}
		c.At = fromMicros(at)
		out = append(out, c)
	}
	return out, wrap("read audit checkpoints", rows.Err())
}

// pruneAudit removes each chain's entries up to its anchor (its newest
// checkpoint made before before) and the checkpoints older than the
// anchor.
func pruneAudit(ctx context.Context, tx sqlExec, before time.Time) (int64, error) {
	const anchor = `(SELECT max(c.seq) FROM audit_checkpoints c WHERE c.chain = %s.chain AND c.at < ?1)`
	res, err := tx.ExecContext(ctx, `DELETE FROM audit_log WHERE seq <= `+fmt.Sprintf(anchor, "audit_log"), micros(before))
	if err != nil {
		return 0, wrap("prune audit log", err)
	}
	n, _ := res.RowsAffected()
	_, err = tx.ExecContext(ctx, `DELETE FROM audit_checkpoints AS k WHERE k.seq < `+fmt.Sprintf(anchor, "k"), micros(before))
	return n, wrap("prune audit checkpoints", err)
}

// auditIfChanged appends rec when res changed a row: an act that changed
// nothing (a token recorded again) is not one.
func auditIfChanged(ctx context.Context, tx sqlExec, res sql.Result, rec server.AuditRecord) error {
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return wrap("audit", err)
	}
	return appendAudit(ctx, tx, []server.AuditRecord{rec})
}
