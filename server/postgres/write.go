package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/liveset"
)

// Apply performs one write atomically; see server.Store. Writers of one
// repository, in any process, are serialised by SELECT ... FOR UPDATE on
// its row.
func (db *DB) Apply(ctx context.Context, w server.Write) (server.WriteResult, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return db.cache.Apply(ctx, db.begin, w)
}

// begin takes a pooled connection for one write; the transaction itself
// starts with Lock, pipelined with the row lock, so that a write costs two
// round trips (BEGIN + lock, then the changes + COMMIT) and holds the lock
// for one.
func (db *DB) begin(ctx context.Context) (liveset.Tx, error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, wrap("begin write", err)
	}
	return &writeTx{conn: conn}, nil
}

// writeTx is one READ COMMITTED transaction holding the repository's row
// lock from Lock on; each later statement sees every write committed
// before the lock was granted.
type writeTx struct {
	conn  *pgxpool.Conn
	open  bool       // BEGIN was sent and neither COMMIT nor ROLLBACK since
	batch *pgx.Batch // the plan's statements, sent with COMMIT
}

const lockRepo = `SELECT version, checksum, entries, bytes, updated_at FROM repos WHERE slug = $1 FOR UPDATE`

func (t *writeTx) Lock(ctx context.Context, repo string) (server.RepoState, error) {
	st, err := t.lock(ctx, repo)
	if !errors.Is(err, pgx.ErrNoRows) {
		return st, err
	}
	// A new repository: insert a version-0 row to lock (a concurrent
	// creator waits on its key), kept only if this write changes something.
	_, err = t.conn.Exec(ctx, `INSERT INTO repos (slug, checksum, updated_at) VALUES ($1, $2, now())
		ON CONFLICT (slug) DO NOTHING`, repo, protocol.EmptyDatasetChecksum)
	if err != nil {
		return server.RepoState{}, wrap("create repository", err)
	}
	return t.lock(ctx, repo)
}

// lock sends BEGIN (when the transaction is not open yet) and the row lock
// in one round trip.
func (t *writeTx) lock(ctx context.Context, repo string) (server.RepoState, error) {
	b := &pgx.Batch{}
	if !t.open {
		b.Queue("BEGIN")
		t.open = true
	}
	st := server.RepoState{Repo: repo}
	var scanErr error
	b.Queue(lockRepo, repo).QueryRow(func(row pgx.Row) error {
		scanErr = row.Scan(&st.Version, &st.Checksum, &st.Entries, &st.Bytes, &st.UpdatedAt)
		return nil
	})
	err := t.conn.SendBatch(ctx, b).Close()
	if err == nil {
		err = scanErr
	}
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return server.RepoState{}, err
	case err != nil:
		return server.RepoState{}, wrap("lock repository", err)
	case st.Version == 0:
		return liveset.EmptyState(repo), nil
	}
	st.UpdatedAt = st.UpdatedAt.UTC()
	return st, nil
}

func (t *writeTx) Live(ctx context.Context, repo string, add func(string, liveset.Entry)) error {
	rows, err := t.conn.Query(ctx, `SELECT key, checksum, size FROM entries WHERE repo = $1 AND NOT deleted ORDER BY key`, repo)
	if err != nil {
		return wrap("read live entries", err)
	}
	var key string
	var e liveset.Entry
	_, err = pgx.ForEachRow(rows, []any{&key, &e.Checksum, &e.Size}, func() error {
		add(key, e)
		return nil
	})
	return wrap("read live entries", err)
}

const (
	saveRepo = `UPDATE repos SET version = $2, checksum = $3, entries = $4, bytes = $5, updated_at = $6
		WHERE slug = $1`
	saveEntry = `INSERT INTO entries (repo, key, folded_key, checksum, size, content, version, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (repo, key) DO UPDATE SET folded_key = excluded.folded_key, checksum = excluded.checksum,
			size = excluded.size, content = excluded.content, version = excluded.version,
			updated_at = excluded.updated_at, deleted = false, deleted_at = NULL`
	deleteEntry = `UPDATE entries SET deleted = true, deleted_at = $3, version = $4, updated_at = $3, content = ''
		WHERE repo = $1 AND key = $2`
	saveVersion  = `INSERT INTO versions (repo, version, checksum) VALUES ($1, $2, $3)`
	saveRevision = `INSERT INTO revisions (repo, key, version, op, checksum, size, author, at, content)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`
)

// Save queues every statement of the plan; Commit sends them with COMMIT
// in one pipelined batch.
func (t *writeTx) Save(ctx context.Context, p *liveset.Plan) error {
	b := &pgx.Batch{}
	b.Queue(saveRepo, p.Repo, p.Version, p.Checksum, p.Entries, p.Bytes, p.At)
	b.Queue(saveVersion, p.Repo, p.Version, p.Checksum)
	for _, c := range p.Changes {
		if c.Op == server.OpDelete {
			b.Queue(deleteEntry, p.Repo, c.Key, p.At, p.Version)
		} else {
			b.Queue(saveEntry, p.Repo, c.Key, protocol.FoldKey(c.Key), c.Checksum, c.Size, c.Content, p.Version, p.At)
		}
		b.Queue(saveRevision, p.Repo, c.Key, p.Version, string(c.Op), c.Checksum, c.Size, p.Author, p.At, c.Content)
	}
	t.batch = b
	return nil
}

// Commit sends the saved statements and COMMIT. When any statement fails
// the server aborts the transaction and skips the rest, COMMIT included;
// Rollback then ends it.
func (t *writeTx) Commit(ctx context.Context) error {
	b := t.batch
	if b == nil {
		b = &pgx.Batch{}
	}
	b.Queue("COMMIT")
	t.batch = nil
	if err := t.conn.SendBatch(ctx, b).Close(); err != nil {
		return wrap("save write", err)
	}
	t.open = false
	return nil
}

// Rollback ends an open transaction and returns the connection to the
// pool; a connection whose state is unknown is closed instead. It runs under
// cleanup's deadline: after a failed write on a database that stopped
// answering, the caller is not held.
func (t *writeTx) Rollback(ctx context.Context) error {
	if t.conn == nil {
		return nil
	}
	conn, open := t.conn, t.open
	t.conn, t.open = nil, false
	if !open {
		conn.Release()
		return nil
	}
	return wrap("roll back write", cleanup(ctx, func(ctx context.Context) error {
		defer conn.Release()
		_, err := conn.Exec(ctx, "ROLLBACK")
		if err != nil {
			_ = conn.Conn().Close(ctx) // never hand a connection in a transaction back
		}
		return err
	}))
}
