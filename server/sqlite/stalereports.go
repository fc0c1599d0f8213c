package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/teammem/teammem/server"
)

// saveStaleReport records one reporter's report of an entry at a commit.
const saveStaleReport = `INSERT INTO stale_reports (repo, key, commit_id, reporter, version, committed_at, branch, reported_at, findings)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (repo, key, commit_id, reporter) DO UPDATE SET version = excluded.version,
	committed_at = excluded.committed_at, branch = excluded.branch, reported_at = excluded.reported_at, findings = excluded.findings`

// trimStaleReports keeps the ?3 reports of an entry that rank first: each
// reporter's latest (round 1), then each one's report before, the later
// reported first within a round (server.Store.SaveStaleReports).
const trimStaleReports = `DELETE FROM stale_reports WHERE repo = ?1 AND key = ?2 AND (commit_id, reporter) IN (
	SELECT commit_id, reporter FROM (
		SELECT commit_id, reporter, row_number() OVER (ORDER BY round, reported_at DESC, commit_id, reporter) AS n FROM (
			SELECT commit_id, reporter, reported_at,
				row_number() OVER (PARTITION BY reporter ORDER BY reported_at DESC, commit_id) AS round
			FROM stale_reports WHERE repo = ?1 AND key = ?2))
	WHERE n > ?3)`

// SaveStaleReports records each report at its commit and reporter, and
// keeps server.StaleReportsKept of each entry, in the writer's next batch
// (server.Store).
func (db *DB) SaveStaleReports(ctx context.Context, repo string, reports []server.StaleReport) error {
	rows := make([][]byte, len(reports))
	for i, r := range reports {
		var err error
		if rows[i], err = server.EncodeStaleFindings(r.Findings); err != nil {
			return err
		}
	}
	return db.exec(ctx, "save stale-reference reports of "+repo, func(ctx context.Context, tx *sql.Tx) error {
		save, err := tx.PrepareContext(ctx, saveStaleReport)
		if err != nil {
			return wrap("save stale-reference reports", err)
		}
		defer save.Close()
		trim, err := tx.PrepareContext(ctx, trimStaleReports)
		if err != nil {
			return wrap("save stale-reference reports", err)
		}
		defer trim.Close()
		for i, r := range reports {
			if _, err := save.ExecContext(ctx, repo, r.Key, r.Commit, r.Reporter, r.Version, commitMicros(r.CommittedAt), r.Branch,
				micros(r.At), string(rows[i])); err != nil {
				return wrap("save stale-reference reports", err)
			}
			if _, err := trim.ExecContext(ctx, repo, r.Key, server.StaleReportsKept); err != nil {
				return wrap("trim stale-reference reports", err)
			}
		}
		return nil
	})
}

// commitMicros is a committer time as stored: NULL when unknown.
func commitMicros(t time.Time) sql.NullInt64 {
	return sql.NullInt64{Int64: micros(t), Valid: !t.IsZero()}
}

// StaleReports returns the reports kept of the entries of repo that q
// selects, by key, commit and reporter (server.Store).
func (db *DB) StaleReports(ctx context.Context, repo string, q server.StaleQuery) ([]server.StaleReport, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT key, version, commit_id, committed_at, branch, reporter, reported_at, findings
		FROM stale_reports WHERE repo = ?1 AND (?2 = '' OR key = ?2)
			AND (NOT ?3 OR key IN (SELECT key FROM stale_reports WHERE repo = ?1 AND findings <> '[]'))
		ORDER BY key, commit_id, reporter`, repo, q.Key, q.Stale)
	if err != nil {
		return nil, wrap("read stale-reference reports", err)
	}
	defer rows.Close()
	var out []server.StaleReport
	for rows.Next() {
		r := server.StaleReport{Repo: repo}
		var at int64
		var committed sql.NullInt64
		var findings string
		if err := rows.Scan(&r.Key, &r.Version, &r.Commit, &committed, &r.Branch, &r.Reporter, &at, &findings); err != nil {
			return nil, wrap("read stale-reference reports", err)
		}
		r.At = fromMicros(at)
		if committed.Valid {
			r.CommittedAt = fromMicros(committed.Int64)
		}
		if r.Findings, err = server.DecodeStaleFindings([]byte(findings)); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, wrap("read stale-reference reports", rows.Err())
}
