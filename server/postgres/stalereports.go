package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
)

// saveStaleReport records one reporter's report of an entry at a commit.
const saveStaleReport = `INSERT INTO stale_reports (repo, key, commit_id, reporter, version, committed_at, branch, reported_at, findings)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (repo, key, commit_id, reporter) DO UPDATE SET version = excluded.version,
	committed_at = excluded.committed_at, branch = excluded.branch, reported_at = excluded.reported_at, findings = excluded.findings`

// trimStaleReports keeps the $3 reports of an entry that rank first: each
// reporter's latest (round 1), then each one's report before, the later
// reported first within a round (server.Store.SaveStaleReports).
const trimStaleReports = `DELETE FROM stale_reports WHERE repo = $1 AND key = $2 AND (commit_id, reporter) IN (
	SELECT commit_id, reporter FROM (
		SELECT commit_id, reporter, row_number() OVER (ORDER BY round, reported_at DESC, commit_id, reporter) AS n FROM (
			SELECT commit_id, reporter, reported_at,
				row_number() OVER (PARTITION BY reporter ORDER BY reported_at DESC, commit_id) AS round
			FROM stale_reports WHERE repo = $1 AND key = $2) AS rounds) AS ranked
	WHERE n > $3)`

// SaveStaleReports records each report at its commit and reporter, and
// keeps server.StaleReportsKept of each entry, in one transaction
// (server.Store).
func (db *DB) SaveStaleReports(ctx context.Context, repo string, reports []server.StaleReport) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var b pgx.Batch
	for _, r := range reports {
		findings, err := server.EncodeStaleFindings(r.Findings)
		if err != nil {
			return err
		}
		b.Queue(saveStaleReport, repo, r.Key, r.Commit, r.Reporter, r.Version, committedAt(r.CommittedAt), r.Branch, r.At,
			json.RawMessage(findings))
		b.Queue(trimStaleReports, repo, r.Key, server.StaleReportsKept)
	}
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, &b).Close() })
	return wrap("save stale-reference reports", err)
}

// committedAt is a committer time as stored: NULL when unknown.
func committedAt(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// StaleReports returns the reports kept of the entries of repo that q
// selects, by key, commit and reporter (server.Store).
func (db *DB) StaleReports(ctx context.Context, repo string, q server.StaleQuery) ([]server.StaleReport, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT key, version, commit_id, committed_at, branch, reporter, reported_at, findings::text
		FROM stale_reports WHERE repo = $1 AND ($2 = '' OR key = $2)
			AND (NOT $3 OR key IN (SELECT key FROM stale_reports WHERE repo = $1 AND findings <> '[]'::jsonb))
		ORDER BY key, commit_id COLLATE "C", reporter COLLATE "C"`, repo, q.Key, q.Stale)
	if err != nil {
		return nil, wrap("read stale-reference reports", err)
	}
	defer rows.Close()
	var out []server.StaleReport
	for rows.Next() {
		r := server.StaleReport{Repo: repo}
		var committed *time.Time
		var findings string
		if err := rows.Scan(&r.Key, &r.Version, &r.Commit, &committed, &r.Branch, &r.Reporter, &r.At, &findings); err != nil {
			return nil, wrap("read stale-reference reports", err)
		}
		r.At = r.At.UTC()
		if committed != nil {
			r.CommittedAt = committed.UTC()
		}
		if r.Findings, err = server.DecodeStaleFindings([]byte(findings)); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, wrap("read stale-reference reports", rows.Err())
}
