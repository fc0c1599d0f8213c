package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// Statements of the write path, prepared once on the write pool's one
// connection (a statement prepared on a sql.Conn would be prepared again
// by every Tx.StmtContext).
const (
	liveSQL = `SELECT key, checksum, size FROM entries WHERE repo = ? AND deleted = 0 ORDER BY key`
	repoSQL = `INSERT INTO repos (slug, version, checksum, entries, bytes, updated_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (slug) DO UPDATE SET version = excluded.version, checksum = excluded.checksum,
			entries = excluded.entries, bytes = excluded.bytes, updated_at = excluded.updated_at`
	// An entry's content is stored once, in its revision (see migration 3).
	putSQL = `INSERT INTO entries
		(repo, key, folded_key, checksum, size, version, updated_at, deleted, deleted_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, 0, NULL)
		ON CONFLICT (repo, key) DO UPDATE SET checksum = excluded.checksum,
			size = excluded.size, version = excluded.version, updated_at = excluded.updated_at,
			deleted = 0, deleted_at = NULL`
	deleteSQL = `UPDATE entries SET deleted = 1, deleted_at = ?, version = ?, updated_at = ?
		WHERE repo = ? AND key = ?`
	revisionSQL = `INSERT INTO revisions (repo, key, version, op, checksum, size, author, at, content)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	versionSQL = `INSERT INTO versions (repo, version, checksum, ` + writeplan.VersionProvenance + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	savepointSQL  = `SAVEPOINT change`
	releaseSQL    = `RELEASE change`
	rollbackToSQL = `ROLLBACK TO change`
)

// writeStmts are the writer's prepared statements; bound to one
// transaction by in.
type writeStmts struct {
	state, live, repo, put, del, rev, ver, savepoint, release, rollbackTo *sql.Stmt
	auditHead, auditInsert, auditMove                                     *sql.Stmt
	search                                                                searchStmts
}

func (s *writeStmts) all() []**sql.Stmt {
	return append([]**sql.Stmt{&s.state, &s.live, &s.repo, &s.put, &s.del, &s.rev, &s.ver, &s.savepoint, &s.release, &s.rollbackTo,
		&s.auditHead, &s.auditInsert, &s.auditMove}, s.search.all()...)
}

var writeSQL = append([]string{stateSQL, liveSQL, repoSQL, putSQL, deleteSQL, revisionSQL, versionSQL, savepointSQL, releaseSQL, rollbackToSQL,
	auditHeadSQL, auditInsertSQL, auditMoveSQL}, searchWriteSQL...)

func prepareWrites(ctx context.Context, pool *sql.DB) (*writeStmts, error) {
	s := &writeStmts{}
	for i, p := range s.all() {
		stmt, err := pool.PrepareContext(ctx, writeSQL[i])
		if err != nil {
			_ = s.Close()
			return nil, wrap("prepare write statements", err)
		}
		*p = stmt
	}
	return s, nil
}

// in returns the statements bound to tx.
func (s *writeStmts) in(ctx context.Context, tx *sql.Tx) *writeStmts {
	t := &writeStmts{}
	for i, p := range t.all() {
		*p = tx.StmtContext(ctx, *s.all()[i])
	}
	return t
}

// Close closes the statements prepared so far.
func (s *writeStmts) Close() error {
	var errs []error
	for _, p := range s.all() {
		if *p != nil {
			errs = append(errs, (*p).Close())
		}
	}
	return errors.Join(errs...)
}

// batch is one write transaction shared by several jobs.
type batch struct {
	w            *writer
	tx           *sql.Tx
	stmts        *writeStmts
	pending      map[string]server.RepoState    // states written by this batch
	plans        []*writeplan.Plan              // the writes committed by this batch, in order
	audit        *auditAppender                 // the audit records of the batch's writes and acts
	index        []indexChange                  // search index changes (backfill, marked keys), made at the end
	marks        []pendingKey                   // the keys the committed writes changed, marked at the end
	indexedMarks bool                           // a pendingJob ran: the marks left are counted again
	alone        bool                           // the batch holds one job: a write that fails to save fails alone
	purged       bool                           // tombstones were removed
	policies     map[string]server.ReviewPolicy // review policies set by this batch, cached once it commits
	changed      bool                           // something to commit
	broken       error                          // the transaction is unusable
}

func newBatch(ctx context.Context, tx *sql.Tx, w *writer) *batch {
	st := w.stmts.in(ctx, tx)
	audit := newAuditAppender(preparedExec{auditHeadSQL: st.auditHead, auditInsertSQL: st.auditInsert, auditMoveSQL: st.auditMove})
	return &batch{w: w, tx: tx, stmts: st, pending: map[string]server.RepoState{}, audit: audit}
}

// policy returns repo's review policy as this batch sees it.
func (b *batch) policy(ctx context.Context, repo string) (server.ReviewPolicy, error) {
	if p, ok := b.policies[repo]; ok {
		return p, nil
	}
	return b.w.db.policies.get(ctx, repo, b.w.db.readPolicies)
}

// setPolicy records a review policy set by this batch.
func (b *batch) setPolicy(repo string, p server.ReviewPolicy) {
	if b.policies == nil {
		b.policies = map[string]server.ReviewPolicy{}
	}
	b.policies[repo] = p
}

// checkPolicy refuses w when it was cut by another review policy than
// repo's (server.Write's Policy).
func (b *batch) checkPolicy(ctx context.Context, w server.Write) error {
	if w.Policy == "" {
		return nil
	}
	p, err := b.policy(ctx, w.Repo)
	if err != nil {
		return err
	}
	if p != w.Policy {
		return &server.PolicyChangedError{Repo: w.Repo, Policy: p}
	}
	return nil
}

// state returns repo's state as this batch sees it.
func (b *batch) state(ctx context.Context, repo string) (server.RepoState, error) {
	if st, ok := b.pending[repo]; ok {
		return st, nil
	}
	if st, ok := b.w.db.states.get(repo); ok {
		return st, nil
	}
	st, _, err := readState(ctx, b.stmts.state, repo)
	if errors.Is(err, server.ErrNotFound) {
		return writeplan.EmptyState(repo), nil
	}
	return st, err
}

// saveRepos writes the row of every repository the batch changed, once
// per batch rather than once per write.
func (b *batch) saveRepos(ctx context.Context) error {
	for _, st := range b.pending {
		if err := b.saveRepo(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

func (b *batch) saveRepo(ctx context.Context, st server.RepoState) error {
	_, err := b.stmts.repo.ExecContext(ctx, st.Repo, st.Version, st.Checksum, st.Entries, st.Bytes, micros(st.UpdatedAt))
	return wrap("save repository", err)
}

// inSavepoint runs fn inside a savepoint, rolled back alone when fn fails.
// When even that fails the whole batch is marked broken.
func (b *batch) inSavepoint(ctx context.Context, fn func() error) error {
	if _, err := b.stmts.savepoint.ExecContext(ctx); err != nil {
		b.broken = wrap("begin savepoint", err)
		return b.broken
	}
	heads := b.audit.mark()
	err := fn()
	if err != nil {
		b.audit.reset(heads)
		if _, rerr := b.stmts.rollbackTo.ExecContext(ctx); rerr != nil {
			b.broken = wrap("roll back savepoint", rerr)
		}
	}
	if _, rerr := b.stmts.release.ExecContext(ctx); rerr != nil && b.broken == nil {
		b.broken = wrap("release savepoint", rerr)
	}
	return errors.Join(err, b.broken)
}

func (b *batch) begin(context.Context) (writeplan.Tx, error) {
	if b.broken != nil {
		return nil, b.broken
	}
	return &change{b: b}, nil
}

// change is one Apply inside a batch, seen by writeplan.Cache as its
// transaction: its rows are saved inside a savepoint and its state becomes
// the batch's on Commit.
type change struct {
	b     *batch
	plan  *writeplan.Plan
	marks []pendingKey // marked by the batch if the change commits
}

func (c *change) Lock(ctx context.Context, repo string) (server.RepoState, error) {
	return c.b.state(ctx, repo)
}

func (c *change) Live(ctx context.Context, repo string, add func(string, writeplan.Entry)) error {
	rows, err := c.b.stmts.live.QueryContext(ctx, repo)
	if err != nil {
		return wrap("read live entries", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var e writeplan.Entry
		if err := rows.Scan(&key, &e.Checksum, &e.Size); err != nil {
			return wrap("read live entries", err)
		}
		add(key, e)
	}
	return wrap("read live entries", rows.Err())
}

// Save writes p's rows without a savepoint of their own: every check a
// write can fail is made before it is saved (its plan, its policy, its
// preconditions), so a statement that fails here is an exception (a full
// disk, a broken file), and a savepoint per write cost 8 % of the server's
// CPU under 16 writers of one key each (two more statements, and every
// page the write changes copied to the savepoint's journal). In a batch of
// several jobs, such a failure breaks the batch: it is rolled back and its
// jobs run again one per transaction (errRunAlone), where the failure is
// this write's own.
func (c *change) Save(ctx context.Context, p *writeplan.Plan) error {
	c.plan = p
	err := c.save(ctx, p)
	if err != nil && !c.b.alone {
		c.b.broken = &errRunAlone{err}
		return c.b.broken
	}
	return err
}

// errRunAlone breaks a batch in which a write failed to save: the batch is
// rolled back and its jobs run again, each in its own transaction.
type errRunAlone struct{ err error }

func (e *errRunAlone) Error() string {
	return "a write of the batch failed (its jobs run again one by one): " + e.err.Error()
}

func (e *errRunAlone) Unwrap() error { return e.err }

func (c *change) save(ctx context.Context, p *writeplan.Plan) error {
	st, at := c.b.stmts, micros(p.At)
	if p.Version == 1 { // a new repository: its row must exist before its entries
		if err := c.b.saveRepo(ctx, p.State()); err != nil {
			return err
		}
	}
	if _, err := st.ver.ExecContext(ctx, append([]any{p.Repo, p.Version, p.Checksum}, writeplan.ProvenanceValues(p.Provenance)...)...); err != nil {
		return wrap("save version", err)
	}
	var err error
	for _, ch := range p.Changes {
		if ch.Op == server.OpDelete {
			_, err = st.del.ExecContext(ctx, at, p.Version, at, p.Repo, ch.Key)
		} else {
			_, err = st.put.ExecContext(ctx, p.Repo, ch.Key, protocol.FoldKey(ch.Key), ch.Checksum, ch.Size, p.Version, at)
		}
		if err != nil {
			return wrap("save entry", err)
		}
		if _, err := st.rev.ExecContext(ctx, p.Repo, ch.Key, p.Version, string(ch.Op), ch.Checksum, ch.Size, p.Author, at, ch.Content); err != nil {
			return wrap("save revision", err)
		}
		c.marks = append(c.marks, pendingKey{p.Repo, ch.Key})
	}
	return c.b.audit.append(ctx, []server.AuditRecord{p.AuditRecord()})
}

// Commit makes the change's state the batch's; the batch commits later.
func (c *change) Commit(context.Context) error {
	c.b.pending[c.plan.Repo] = c.plan.State()
	c.b.plans = append(c.b.plans, c.plan)
	c.b.marks = append(c.b.marks, c.marks...)
	c.b.changed = true
	return nil
}

// Rollback does nothing: a failed Save already rolled its savepoint back.
func (c *change) Rollback(context.Context) error { return nil }
