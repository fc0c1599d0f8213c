package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// Apply performs one write atomically; see server.Store. The writes of one
// repository that wait at the same moment in this process are applied
// together, in arrival order, in one transaction (see group); writers in
// any process are serialised by SELECT ... FOR UPDATE on the repository's
// row. Apply returns when the transaction holding the write has committed,
// or at ctx's deadline (the write's outcome is then unknown, as with any
// request cut short).
func (db *DB) Apply(ctx context.Context, w server.Write) (server.WriteResult, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	j := &job{ctx: ctx, w: w, done: make(chan struct{})}
	db.writes.submit(j, db.runGroup)
	select {
	case <-j.done:
		return j.res, j.err
	case <-ctx.Done():
		return server.WriteResult{}, fmt.Errorf("apply write to %s: %w", w.Repo, ctx.Err())
	}
}

// runGroup applies jobs, writes of one repository in arrival order, in one
// transaction: each is planned by the live-set cache against the state the
// ones before it leave, its statements are queued, and one pipelined batch
// sends them all with the repository's new row, the change notice and
// COMMIT. A job fails alone when its own checks fail (a precondition, a
// limit); a conditional job already refused by the state this process
// last committed (see committed.stale) costs no statement at all. When the
// transaction fails, every job of the group fails with it and the cached
// live set is dropped. The group runs until the latest deadline of its
// jobs; a job whose caller already gave up is left out. It returns the
// state it committed, ok false when it committed nothing.
//
// When this process committed the repository's last known state and still
// holds its live set, the group is planned against that state without
// reading it first, and its batch opens with a guard that locks the row and
// fails unless the version is still that one, and the review policy the
// group's writes were cut by (server.Write's Policy) still the
// repository's: one round trip in all. When another process wrote
// meanwhile, or a policy was set, the guard aborts the transaction and the
// group runs again, locking and reading first; a write cut by another
// policy than the one read then fails alone (server.PolicyChangedError).
func (db *DB) runGroup(jobs []*job, last committed) (st server.RepoState, ok bool) {
	repo := jobs[0].w.Repo
	ctx, cancel := sharedContext(jobs, func(j *job) context.Context { return j.ctx })
	defer cancel()
	applied := jobs[:0:0]
	for _, j := range jobs {
		err := j.ctx.Err()
		if err == nil {
			err = last.stale(j)
		}
		if err != nil {
			j.err = fmt.Errorf("apply write to %s: %w", repo, err)
			close(j.done)
			continue
		}
		applied = append(applied, j)
	}
	if len(applied) == 0 {
		return server.RepoState{}, false
	}
	var known *server.RepoState
	policy, agreed := groupPolicy(applied)
	if last.seq > 0 && agreed && db.cache.Holds(repo, last.state.Version) {
		known = &last.state
	}
	g, err := db.tryGroup(ctx, repo, applied, known, policy)
	if errors.Is(err, errMoved) {
		g, err = db.tryGroup(ctx, repo, applied, nil, "")
	}
	for _, j := range applied {
		if err != nil {
			j.res, j.err = server.WriteResult{}, fmt.Errorf("apply write to %s: %w", repo, err)
		}
		close(j.done)
	}
	return g.state, err == nil && g.changed
}

// groupPolicy returns the review policy jobs were cut by, "" when none
// depends on one, and whether they agree (a guard checks one policy).
func groupPolicy(jobs []*job) (server.ReviewPolicy, bool) {
	var p server.ReviewPolicy
	for _, j := range jobs {
		switch {
		case j.w.Policy == "":
		case p == "":
			p = j.w.Policy
		case p != j.w.Policy:
			return "", false
		}
	}
	return p, true
}

// tryGroup runs jobs as one group, from the known state (see runGroup),
// guarding policy too when set, or, when known is nil, from the row it
// locks.
func (db *DB) tryGroup(ctx context.Context, repo string, jobs []*job, known *server.RepoState, policy server.ReviewPolicy) (*group, error) {
	g := db.newGroup(repo)
	if known != nil {
		g.guard(*known, policy)
	}
	for _, j := range jobs {
		if j.err = g.checkPolicy(ctx, j.w); j.err != nil {
			j.res = server.WriteResult{}
			continue
		}
		j.res, j.err = db.cache.Apply(ctx, g.begin, j.w)
	}
	err := g.commit(ctx)
	g.end(ctx)
	switch {
	case err != nil:
		db.cache.Forget(repo)
	case g.changed:
		db.meta.Commit(g.plans)
		db.indexer.committed(repo, g.marked)
	}
	return g, err
}

// newGroup returns an empty group of writes to repo; begin hands each
// write its writeplan.Tx, commit sends everything, end releases the
// connection.
func (db *DB) newGroup(repo string) *group {
	return &group{db: db, repo: repo, batch: &pgx.Batch{}}
}

// group is one READ COMMITTED transaction holding a repository's row lock
// for several writes. The first write's Lock takes a pooled connection and
// sends BEGIN and the row lock in one round trip; later writes see the
// state the earlier ones planned. Statements are queued and sent with
// COMMIT by commit: a group of any size costs two round trips.
type group struct {
	db      *DB
	repo    string
	conn    *pgxpool.Conn
	open    bool                // BEGIN was sent and neither COMMIT nor ROLLBACK since
	locked  bool                // state holds the locked (or guarded) row and the changes planned since
	guarded bool                // the batch opens with BEGIN and guardRepo, see guard
	state   server.RepoState    // after the changes queued so far
	policy  server.ReviewPolicy // the repository's review policy once locked ("" when guarded for none)
	batch   *pgx.Batch          // the queued statements
	plans   []*writeplan.Plan   // the planned writes, in order: commit stores their rows
	marked  int64               // the keys the commit marked for search that were not marked yet
	changed bool                // something to commit
	broken  error               // the transaction is unusable
}

func (g *group) begin(context.Context) (writeplan.Tx, error) {
	if g.broken != nil {
		return nil, g.broken
	}
	return &change{g: g}, nil
}

// lockRepo locks the repository's row and reads its state and review
// policy. The policy is read with the lock: a policy set commits its copy
// on this row (migration 23's trigger) under the same lock, so a write
// holding the lock commits before any policy set after its check, and one
// that waited for a policy set reads the new policy.
const lockRepo = `SELECT version, checksum, entries, bytes, updated_at, review FROM repos WHERE slug = $1 FOR UPDATE`

// guardRepo locks the repository's row and fails with division_by_zero
// unless its version is $2 and, when $3 is not empty, its review policy
// $3. After waiting for the lock, FOR UPDATE evaluates the row as the
// transaction that held it committed it.
const guardRepo = `SELECT 1 / (version = $2 AND ($3 = '' OR review = $3))::int FROM repos WHERE slug = $1 FOR UPDATE`

// errMoved: the repository's version was not the one a guarded group
// planned against (another process wrote it), or its review policy not
// the one the group's writes were cut by.
var errMoved = errors.New("repository changed since this process last wrote it")

// guard makes the group plan against st, and policy when set, without
// reading them: its batch opens with BEGIN and guardRepo, which abort the
// transaction (commit then returns errMoved) unless the row still has st's
// version and that policy when locked. The batch is then sent even when
// nothing changed, to confirm the state the refusals and no-op answers
// were given against.
func (g *group) guard(st server.RepoState, policy server.ReviewPolicy) {
	g.state, g.locked, g.guarded, g.policy = st, true, true, policy
	g.batch.Queue("BEGIN")
	g.batch.Queue(guardRepo, g.repo, st.Version, string(policy))
}

// checkPolicy refuses w when it was cut by another review policy than the
// repository's (server.Write's Policy), locking the row first when the
// group has not: a write that changes nothing is checked too.
func (g *group) checkPolicy(ctx context.Context, w server.Write) error {
	if w.Policy == "" {
		return nil
	}
	if _, err := g.lock(ctx); err != nil {
		return err
	}
	if g.policy != w.Policy {
		return &server.PolicyChangedError{Repo: g.repo, Policy: g.policy}
	}
	return nil
}

// lock takes the connection and the row lock, once per group.
func (g *group) lock(ctx context.Context) (server.RepoState, error) {
	if g.locked {
		return g.state, nil
	}
	if g.conn == nil {
		conn, err := g.db.pool.Acquire(ctx)
		if err != nil {
			return server.RepoState{}, g.fail(wrap("begin write", err))
		}
		g.conn = conn
	}
	st, pol, err := g.lockRow(ctx)
	if errors.Is(err, pgx.ErrNoRows) {
		// A new repository: insert a version-0 row to lock (a concurrent
		// creator waits on its key), kept only if the group changes
		// something.
		_, err = g.conn.Exec(ctx, `INSERT INTO repos (slug, checksum, updated_at) VALUES ($1, $2, now())
			ON CONFLICT (slug) DO NOTHING`, g.repo, protocol.EmptyDatasetChecksum)
		if err != nil {
			return server.RepoState{}, g.fail(wrap("create repository", err))
		}
		st, pol, err = g.lockRow(ctx)
	}
	if err != nil {
		return server.RepoState{}, g.fail(wrap("lock repository", err))
	}
	g.state, g.locked, g.policy = st, true, pol
	return st, nil
}

// lockRow sends BEGIN (when the transaction is not open yet) and the row
// lock in one round trip, and returns the row's state and review policy.
func (g *group) lockRow(ctx context.Context) (server.RepoState, server.ReviewPolicy, error) {
	b := &pgx.Batch{}
	if !g.open {
		b.Queue("BEGIN")
		g.open = true
	}
	st := server.RepoState{Repo: g.repo}
	var pol string
	var scanErr error
	b.Queue(lockRepo, g.repo).QueryRow(func(row pgx.Row) error {
		scanErr = row.Scan(&st.Version, &st.Checksum, &st.Entries, &st.Bytes, &st.UpdatedAt, &pol)
		return nil
	})
	err := g.conn.SendBatch(ctx, b).Close()
	if err == nil {
		err = scanErr
	}
	switch {
	case err != nil:
		return server.RepoState{}, "", err
	case st.Version == 0:
		return writeplan.EmptyState(g.repo), server.ReviewPolicy(pol), nil
	}
	st.UpdatedAt = st.UpdatedAt.UTC()
	return st, server.ReviewPolicy(pol), nil
}

// fail marks the transaction unusable and returns err.
func (g *group) fail(err error) error {
	g.broken = err
	return err
}

const (
	saveRepo = `UPDATE repos SET version = $2, checksum = $3, entries = $4, bytes = $5, updated_at = $6
		WHERE slug = $1`
	notify = `SELECT pg_notify($1, $2)`
)

// commit sends the queued statements, the repository's row, the change
// notice and COMMIT in one batch; with nothing to commit it does nothing
// (end rolls back). When any statement fails the server aborts the
// transaction and skips the rest, COMMIT included; end then rolls back.
// The notice is sent inside the transaction: PostgreSQL delivers it to the
// listeners when, and only when, the write commits.
func (g *group) commit(ctx context.Context) error {
	if g.broken != nil {
		return g.broken
	}
	if !g.changed && !g.guarded {
		return nil
	}
	st := g.state
	b := g.batch
	if g.changed {
		newSaveRows(g.plans).queue(b, g.repo, &g.marked)
		recs := make([]server.AuditRecord, len(g.plans))
		for i, p := range g.plans {
			recs[i] = p.AuditRecord()
		}
		if err := queueAudit(b, recs); err != nil {
			return g.fail(err)
		}
		b.Queue(saveRepo, st.Repo, st.Version, st.Checksum, st.Entries, st.Bytes, st.UpdatedAt)
		b.Queue(notify, eventsChannel, noticeOf(st.Repo, st.Version))
	}
	b.Queue("COMMIT")
	g.batch = &pgx.Batch{}
	if g.conn == nil {
		conn, err := g.db.pool.Acquire(ctx)
		if err != nil {
			return g.fail(wrap("begin write", err))
		}
		g.conn = conn
	}
	g.open = true // from the first statement on, until COMMIT is confirmed
	err := g.conn.SendBatch(ctx, b).Close()
	var pe *pgconn.PgError
	switch {
	case g.guarded && errors.As(err, &pe) && pe.Code == "22012": // division_by_zero: the guard
		return g.fail(errMoved)
	case err != nil:
		return g.fail(wrap("save write", err))
	}
	g.open = false
	return nil
}

// end ends a transaction still open (nothing changed, or a failure) and
// returns the connection to the pool; a connection whose state is unknown
// is closed instead. It runs under cleanup's deadline: after a failed write
// on a database that stopped answering, nobody is held.
func (g *group) end(ctx context.Context) {
	if g.conn == nil {
		return
	}
	conn, open := g.conn, g.open
	g.conn, g.open = nil, false
	if !open {
		conn.Release()
		return
	}
	_ = cleanup(ctx, func(ctx context.Context) error {
		defer conn.Release()
		_, err := conn.Exec(ctx, "ROLLBACK")
		if err != nil {
			_ = conn.Conn().Close(ctx) // never hand a connection in a transaction back
		}
		return err
	})
}

// noticeOf is the payload of the NOTIFY announcing that repo reached
// version (see Broker).
func noticeOf(repo string, version int64) string {
	b, _ := json.Marshal(notice{Repo: repo, Version: version})
	return string(b)
}

// change is one write of a group, seen by writeplan.Cache as its
// transaction: it locks through the group, queues its statements in the
// group's batch and, on Commit, makes its state the group's.
type change struct {
	g    *group
	plan *writeplan.Plan
}

func (c *change) Lock(ctx context.Context, _ string) (server.RepoState, error) {
	return c.g.lock(ctx)
}

func (c *change) Live(ctx context.Context, repo string, add func(string, writeplan.Entry)) error {
	if c.g.guarded { // the cached set was evicted meanwhile: read under the lock instead
		return c.g.fail(errMoved)
	}
	rows, err := c.g.conn.Query(ctx, `SELECT key, checksum, size FROM entries WHERE repo = $1 AND NOT deleted ORDER BY key`, repo)
	if err != nil {
		return c.g.fail(wrap("read live entries", err))
	}
	var key string
	var e writeplan.Entry
	_, err = pgx.ForEachRow(rows, []any{&key, &e.Checksum, &e.Size}, func() error {
		add(key, e)
		return nil
	})
	if err != nil {
		return c.g.fail(wrap("read live entries", err))
	}
	return nil
}

// Save adds the plan to the group's.
func (c *change) Save(_ context.Context, p *writeplan.Plan) error {
	c.g.plans = append(c.g.plans, p)
	c.plan = p
	return nil
}

// Commit makes the write's state the group's; the group commits later.
func (c *change) Commit(context.Context) error {
	c.g.state, c.g.changed = c.plan.State(), true
	return nil
}

// Rollback does nothing: a write's statements are only queued until the
// group commits, and the group ends its own transaction.
func (c *change) Rollback(context.Context) error { return nil }
