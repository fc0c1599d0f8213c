package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/teammem/teammem/server"
)

// SaveStaleReports records each report as its entry's latest, in the
// writer's next batch (server.Store).
func (db *DB) SaveStaleReports(ctx context.Context, repo string, reports []server.StaleReport) error {
	rows := make([][]byte, len(reports))
	for i, r := range reports {
		var err error
		if rows[i], err = server.EncodeStaleFindings(r.Findings); err != nil {
			return err
		}
	}
	return db.exec(ctx, "save stale-reference reports of "+repo, func(ctx context.Context, tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO stale_reports (repo, key, version, commit_id, reporter, reported_at, findings)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (repo, key) DO UPDATE SET version = excluded.version,
			commit_id = excluded.commit_id, reporter = excluded.reporter, reported_at = excluded.reported_at, findings = excluded.findings`)
		if err != nil {
			return wrap("save stale-reference reports", err)
		}
		defer stmt.Close()
		for i, r := range reports {
			if _, err := stmt.ExecContext(ctx, repo, r.Key, r.Version, r.Commit, r.Reporter, micros(r.At), string(rows[i])); err != nil {
				return wrap("save stale-reference reports", err)
			}
		}
		return nil
	})
}

// StaleReports returns the latest reports of repo's entries (of key alone
// when not ""), sorted by key (server.Store).
func (db *DB) StaleReports(ctx context.Context, repo, key string) ([]server.StaleReport, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT key, version, commit_id, reporter, reported_at, findings FROM stale_reports
		WHERE repo = ?1 AND (?2 = '' OR key = ?2) ORDER BY key`, repo, key)
	if err != nil {
		return nil, wrap("read stale-reference reports", err)
	}
	defer rows.Close()
	var out []server.StaleReport
	for rows.Next() {
		r := server.StaleReport{Repo: repo}
		var at int64
		var findings string
		if err := rows.Scan(&r.Key, &r.Version, &r.Commit, &r.Reporter, &at, &findings); err != nil {
			return nil, wrap("read stale-reference reports", err)
		}
		r.At = time.UnixMicro(at).UTC()
		if r.Findings, err = server.DecodeStaleFindings([]byte(findings)); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, wrap("read stale-reference reports", rows.Err())
}
