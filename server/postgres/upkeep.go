package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
)

var _ server.UpkeepStore = (*DB)(nil)

// RecordReads stamps keys of repo as read at at, in one statement
// (server.UpkeepStore).
func (db *DB) RecordReads(ctx context.Context, repo string, keys []string, at time.Time) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	_, err := db.pool.Exec(ctx, `INSERT INTO key_reads (repo, key, read_at)
		SELECT $1, k, $3 FROM unnest($2::text[]) AS k
		ON CONFLICT (repo, key) DO UPDATE SET read_at = greatest(key_reads.read_at, excluded.read_at)`, repo, keys, at)
	return wrap("record reads", err)
}

// LastReads returns when each key of repo was last read and since when
// reads are kept (server.UpkeepStore).
func (db *DB) LastReads(ctx context.Context, repo string) (map[string]time.Time, time.Time, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var since time.Time
	if err := db.pool.QueryRow(ctx, `SELECT since FROM reads_kept_since`).Scan(&since); err != nil {
		return nil, time.Time{}, wrap("read reads", err)
	}
	rows, err := db.pool.Query(ctx, `SELECT key, read_at FROM key_reads WHERE repo = $1`, repo)
	if err != nil {
		return nil, time.Time{}, wrap("read reads", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var k string
		var at time.Time
		if err := rows.Scan(&k, &at); err != nil {
			return nil, time.Time{}, wrap("read reads", err)
		}
		out[k] = at.UTC()
	}
	return out, since.UTC(), wrap("read reads", rows.Err())
}

// UpkeepSettings returns repo's settings (server.UpkeepStore).
func (db *DB) UpkeepSettings(ctx context.Context, repo string) (server.UpkeepSettings, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var s server.UpkeepSettings
	err := db.pool.QueryRow(ctx, `SELECT unused_days, daily_tidy FROM repo_upkeep WHERE repo = $1`, repo).Scan(&s.UnusedDays, &s.DailyTidy)
	if errors.Is(err, pgx.ErrNoRows) {
		return server.UpkeepSettings{}, nil
	}
	return s, wrap("read upkeep settings", err)
}

// SetUpkeepSettings sets repo's settings (server.UpkeepStore).
func (db *DB) SetUpkeepSettings(ctx context.Context, repo string, s server.UpkeepSettings) error {
	if err := s.Check(); err != nil {
		return err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO repo_upkeep (repo, unused_days, daily_tidy) VALUES ($1, $2, $3)
			ON CONFLICT (repo) DO UPDATE SET unused_days = excluded.unused_days, daily_tidy = excluded.daily_tidy`,
			repo, s.UnusedDays, s.DailyTidy)
		if err != nil {
			return wrap("set upkeep settings", err)
		}
		rec := server.AuditRecordOfUpkeep(server.AuditActorFrom(ctx), repo, s, time.Now())
		return appendAuditTx(ctx, tx, []server.AuditRecord{rec})
	})
}

// DailyTidyRepos returns the repositories tidied daily (server.UpkeepStore).
func (db *DB) DailyTidyRepos(ctx context.Context) ([]string, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT repo FROM repo_upkeep WHERE daily_tidy ORDER BY repo`)
	if err != nil {
		return nil, wrap("read daily tidy repositories", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, wrap("read daily tidy repositories", err)
}

// ClaimDailyTidy claims repo's daily tidy (server.UpkeepStore): one
// UPDATE, so of the replicas claiming it at once one wins.
func (db *DB) ClaimDailyTidy(ctx context.Context, repo string, at time.Time, every time.Duration) (bool, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	tag, err := db.pool.Exec(ctx, `UPDATE repo_upkeep SET tidied_at = $2 WHERE repo = $1 AND daily_tidy
		AND (tidied_at IS NULL OR tidied_at <= $3)`, repo, at, at.Add(-every))
	return tag.RowsAffected() == 1, wrap("claim daily tidy", err)
}
