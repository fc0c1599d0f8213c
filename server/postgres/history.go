package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// revisionColumns are a revision's columns but its content, with its
// version's provenance (revisions r LEFT JOIN versions v: revisionFrom).
const (
	revisionColumns = `r.version, r.op, r.checksum, r.size, r.author, r.at, ` + writeplan.ProvenanceColumns
	revisionFrom    = ` FROM revisions r LEFT JOIN versions v ON v.repo = r.repo AND v.version = r.version `
)

// revisionDest returns where the revisionColumns of a row (and the content,
// when withContent) scan into.
func revisionDest(r *server.Revision, withContent bool) []any {
	dest := append([]any{&r.Version, &r.Op, &r.Checksum, &r.Size, &r.Author, &r.At}, writeplan.ProvenanceDest(&r.Provenance)...)
	if withContent {
		dest = append(dest, &r.Content)
	}
	return dest
}

// scanned completes a revision read by revisionDest.
func scanned(r *server.Revision, repo, key string) {
	r.Repo, r.Key, r.At, r.Provenance.Subject = repo, key, r.At.UTC(), r.Author
}

// History lists a key's revisions, newest first; see server.Store.
func (db *DB) History(ctx context.Context, repo, key string, before int64, limit int) ([]server.Revision, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := db.pool.Query(ctx, `SELECT `+revisionColumns+revisionFrom+`
		WHERE r.repo = $1 AND r.key = $2 AND ($3 = 0 OR r.version < $3) ORDER BY r.version DESC LIMIT $4`,
		repo, key, before, lim)
	if err != nil {
		return nil, wrap("read history", err)
	}
	revs := []server.Revision{}
	var r server.Revision
	_, err = pgx.ForEachRow(rows, revisionDest(&r, false), func() error {
		scanned(&r, repo, key)
		revs = append(revs, r)
		return nil
	})
	if err != nil {
		return nil, wrap("read history", err)
	}
	if len(revs) == 0 {
		return revs, db.keyExisted(ctx, repo, key)
	}
	return revs, nil
}

// Histories lists the revisions of several keys, newest first; see
// server.Store. One range of the primary key per key.
func (db *DB) Histories(ctx context.Context, repo string, keys []string, before int64) (map[string][]server.Revision, error) {
	out := map[string][]server.Revision{}
	if len(keys) == 0 {
		return out, nil
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT key, version, op, checksum, size, author, at FROM revisions
		WHERE repo = $1 AND key = ANY($2::text[]) AND ($3 = 0 OR version < $3) ORDER BY key, version DESC`,
		repo, keys, before)
	if err != nil {
		return nil, wrap("read histories", err)
	}
	var r server.Revision
	_, err = pgx.ForEachRow(rows, []any{&r.Key, &r.Version, &r.Op, &r.Checksum, &r.Size, &r.Author, &r.At}, func() error {
		r.Repo, r.At = repo, r.At.UTC()
		out[r.Key] = append(out[r.Key], r)
		return nil
	})
	if err != nil {
		return nil, wrap("read histories", err)
	}
	return out, nil
}

// keyExisted returns an error wrapping server.ErrNotFound unless key has
// at least one revision.
func (db *DB) keyExisted(ctx context.Context, repo, key string) error {
	var one int
	err := db.pool.QueryRow(ctx, `SELECT 1 FROM revisions WHERE repo = $1 AND key = $2 LIMIT 1`, repo, key).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("history of %s in %s: %w", key, repo, server.ErrNotFound)
	}
	return wrap("read history", err)
}

// Revision reads one revision with its content; see server.Store.
func (db *DB) Revision(ctx context.Context, repo, key string, version int64) (server.Revision, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var r server.Revision
	err := db.pool.QueryRow(ctx, readRevisionSQL(version), repo, key, version).Scan(revisionDest(&r, true)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return server.Revision{}, fmt.Errorf("revision %d of %s in %s: %w", version, key, repo, server.ErrNotFound)
	}
	if err != nil {
		return server.Revision{}, wrap("read revision", err)
	}
	scanned(&r, repo, key)
	return r, nil
}

// KeyRevisions hands visit a key's revisions oldest first, with content,
// in one REPEATABLE READ, read-only transaction; see server.Store.
func (db *DB) KeyRevisions(ctx context.Context, repo, key string, through int64, visit func(server.Revision) error) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return wrap("begin key revisions", err)
	}
	defer rollback(ctx, tx)
	rows, err := tx.Query(ctx, `SELECT `+revisionColumns+`, r.content`+revisionFrom+`
		WHERE r.repo = $1 AND r.key = $2 AND ($3 = 0 OR r.version <= $3) ORDER BY r.version`, repo, key, through)
	if err != nil {
		return wrap("read key revisions", err)
	}
	var r server.Revision
	var visited error
	n := 0
	_, err = pgx.ForEachRow(rows, revisionDest(&r, true), func() error {
		scanned(&r, repo, key)
		n++
		visited = visit(r)
		return visited
	})
	switch {
	case visited != nil:
		return visited
	case err != nil:
		return wrap("read key revisions", err)
	case n == 0:
		return fmt.Errorf("revisions of %s in %s up to %d: %w", key, repo, through, server.ErrNotFound)
	}
	return nil
}

// PurgeTombstones removes tombstones deleted before the given time and
// raises the since-floor of their repositories; see server.Store. It locks
// the affected repositories' rows first, in slug order, as Apply does, so
// that it never deadlocks with a write.
func (db *DB) PurgeTombstones(ctx context.Context, before time.Time) (int, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return 0, wrap("begin purge", err)
	}
	defer rollback(ctx, tx)
	_, err = tx.Exec(ctx, `SELECT 1 FROM repos WHERE slug IN
		(SELECT repo FROM entries WHERE deleted AND deleted_at < $1) ORDER BY slug FOR UPDATE`, before)
	if err != nil {
		return 0, wrap("lock repositories", err)
	}
	var n int
	err = tx.QueryRow(ctx, `WITH purged AS (
			DELETE FROM entries WHERE deleted AND deleted_at < $1 RETURNING repo, version
		), floors AS (
			UPDATE repos SET since_floor = GREATEST(repos.since_floor, f.floor)
			FROM (SELECT repo, max(version) AS floor FROM purged GROUP BY repo) f
			WHERE repos.slug = f.repo
		)
		SELECT count(*) FROM purged`, before).Scan(&n)
	if err != nil {
		return 0, wrap("purge tombstones", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, wrap("commit purge", err)
	}
	db.meta.Clear()
	return n, nil
}

// readRevisionSQL reads the revision at version $3, or with version 0 the
// newest.
func readRevisionSQL(version int64) string {
	if version == 0 {
		return `SELECT ` + revisionColumns + `, r.content` + revisionFrom + `
		WHERE r.repo = $1 AND r.key = $2 AND $3::bigint = 0 ORDER BY r.version DESC LIMIT 1`
	}
	return `SELECT ` + revisionColumns + `, r.content` + revisionFrom + `
		WHERE r.repo = $1 AND r.key = $2 AND r.version = $3`
}
