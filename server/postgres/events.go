package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// Events reads the changes after a version, one event per version, in one
// REPEATABLE READ, read-only transaction; see server.Store.
func (db *DB) Events(ctx context.Context, repo string, after int64, limit int) ([]*server.Event, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, wrap("begin events", err)
	}
	defer rollback(ctx, tx)
	last, err := writeplan.EventsRead{Repo: repo, After: after, Limit: limit}.Last(readState(ctx, tx, repo))
	if err != nil || last == after {
		return []*server.Event{}, err
	}
	rows, err := tx.Query(ctx, `SELECT r.version, r.key, r.op, r.author, r.at, coalesce(v.checksum, ''),
		`+writeplan.ProvenanceColumns+`
		FROM revisions r LEFT JOIN versions v ON v.repo = r.repo AND v.version = r.version
		WHERE r.repo = $1 AND r.version > $2 AND r.version <= $3 ORDER BY r.version, r.key`, repo, after, last)
	if err != nil {
		return nil, wrap("read events", err)
	}
	evs := writeplan.EventRows{Repo: repo, Events: []*server.Event{}}
	var version int64
	var key, op, sum string
	var at time.Time
	var prov server.Provenance
	dest := append([]any{&version, &key, &op, &prov.Subject, &at, &sum}, writeplan.ProvenanceDest(&prov)...)
	_, err = pgx.ForEachRow(rows, dest, func() error {
		evs.Add(version, key, server.Op(op), at, sum, prov)
		return nil
	})
	if err != nil {
		return nil, wrap("read events", err)
	}
	return evs.Events, nil
}
