package postgres

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
)

// SaveStaleReports records each report as its entry's latest, in one
// transaction (server.Store).
func (db *DB) SaveStaleReports(ctx context.Context, repo string, reports []server.StaleReport) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var b pgx.Batch
	for _, r := range reports {
		findings, err := server.EncodeStaleFindings(r.Findings)
		if err != nil {
			return err
		}
		b.Queue(`INSERT INTO stale_reports (repo, key, version, commit_id, reporter, reported_at, findings)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (repo, key) DO UPDATE SET version = excluded.version,
			commit_id = excluded.commit_id, reporter = excluded.reporter, reported_at = excluded.reported_at, findings = excluded.findings`,
			repo, r.Key, r.Version, r.Commit, r.Reporter, r.At, json.RawMessage(findings))
	}
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, &b).Close() })
	return wrap("save stale-reference reports", err)
}

// StaleReports returns the latest reports of repo's entries (of key alone
// when not ""), sorted by key (server.Store).
func (db *DB) StaleReports(ctx context.Context, repo, key string) ([]server.StaleReport, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT key, version, commit_id, reporter, reported_at, findings::text FROM stale_reports
		WHERE repo = $1 AND ($2 = '' OR key = $2) ORDER BY key`, repo, key)
	if err != nil {
		return nil, wrap("read stale-reference reports", err)
	}
	defer rows.Close()
	var out []server.StaleReport
	for rows.Next() {
		r := server.StaleReport{Repo: repo}
		var findings string
		if err := rows.Scan(&r.Key, &r.Version, &r.Commit, &r.Reporter, &r.At, &findings); err != nil {
			return nil, wrap("read stale-reference reports", err)
		}
		r.At = r.At.UTC()
		if r.Findings, err = server.DecodeStaleFindings([]byte(findings)); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, wrap("read stale-reference reports", rows.Err())
}
