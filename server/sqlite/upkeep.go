package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/teammem/teammem/server"
)

var _ server.UpkeepStore = (*DB)(nil)

// RecordReads stamps keys of repo as read at at (server.UpkeepStore).
func (db *DB) RecordReads(ctx context.Context, repo string, keys []string, at time.Time) error {
	return db.exec(ctx, "record reads", func(ctx context.Context, tx *sql.Tx) error {
		for _, k := range keys {
			_, err := tx.ExecContext(ctx, `INSERT INTO key_reads (repo, key, read_at) VALUES (?, ?, ?)
				ON CONFLICT (repo, key) DO UPDATE SET read_at = max(read_at, excluded.read_at)`, repo, k, micros(at))
			if err != nil {
				return wrap("record reads", err)
			}
		}
		return nil
	})
}

// LastReads returns when each key of repo was last read and since when
// reads are kept (server.UpkeepStore).
func (db *DB) LastReads(ctx context.Context, repo string) (map[string]time.Time, time.Time, error) {
	var since int64
	if err := db.read.QueryRowContext(ctx, `SELECT since FROM reads_kept_since`).Scan(&since); err != nil {
		return nil, time.Time{}, wrap("read reads", err)
	}
	rows, err := db.read.QueryContext(ctx, `SELECT key, read_at FROM key_reads WHERE repo = ?`, repo)
	if err != nil {
		return nil, time.Time{}, wrap("read reads", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var k string
		var at int64
		if err := rows.Scan(&k, &at); err != nil {
			return nil, time.Time{}, wrap("read reads", err)
		}
		out[k] = fromMicros(at)
	}
	return out, fromMicros(since), wrap("read reads", rows.Err())
}

// UpkeepSettings returns repo's settings (server.UpkeepStore).
func (db *DB) UpkeepSettings(ctx context.Context, repo string) (server.UpkeepSettings, error) {
	var s server.UpkeepSettings
	err := db.read.QueryRowContext(ctx, `SELECT unused_days, daily_tidy FROM repo_upkeep WHERE repo = ?`, repo).Scan(&s.UnusedDays, &s.DailyTidy)
	if errors.Is(err, sql.ErrNoRows) {
		return server.UpkeepSettings{}, nil
	}
	return s, wrap("read upkeep settings", err)
}

// SetUpkeepSettings sets repo's settings (server.UpkeepStore).
func (db *DB) SetUpkeepSettings(ctx context.Context, repo string, s server.UpkeepSettings) error {
	if err := s.Check(); err != nil {
		return err
	}
	by := server.AuditActorFrom(ctx) // the job runs in the writer's context
	return db.execBatch(ctx, "set upkeep settings", func(ctx context.Context, b *batch) error {
		_, err := b.tx.ExecContext(ctx, `INSERT INTO repo_upkeep (repo, unused_days, daily_tidy) VALUES (?, ?, ?)
			ON CONFLICT (repo) DO UPDATE SET unused_days = excluded.unused_days, daily_tidy = excluded.daily_tidy`,
			repo, s.UnusedDays, s.DailyTidy)
		if err != nil {
			return wrap("set upkeep settings", err)
		}
		return b.audit.append(ctx, []server.AuditRecord{server.AuditRecordOfUpkeep(by, repo, s, time.Now())})
	})
}

// DailyTidyRepos returns the repositories tidied daily (server.UpkeepStore).
func (db *DB) DailyTidyRepos(ctx context.Context) ([]string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT repo FROM repo_upkeep WHERE daily_tidy ORDER BY repo`)
	if err != nil {
		return nil, wrap("read daily tidy repositories", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			return nil, wrap("read daily tidy repositories", err)
		}
		out = append(out, r)
	}
	return out, wrap("read daily tidy repositories", rows.Err())
}

// ClaimDailyTidy claims repo's daily tidy (server.UpkeepStore).
func (db *DB) ClaimDailyTidy(ctx context.Context, repo string, at time.Time, every time.Duration) (bool, error) {
	var claimed bool
	err := db.exec(ctx, "claim daily tidy", func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE repo_upkeep SET tidied_at = ? WHERE repo = ? AND daily_tidy AND tidied_at <= ?`,
			micros(at), repo, micros(at.Add(-every)))
		if err != nil {
			return wrap("claim daily tidy", err)
		}
		n, err := res.RowsAffected()
		claimed = n == 1
		return wrap("claim daily tidy", err)
	})
	return claimed, err
}
