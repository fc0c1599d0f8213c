package sqlite

import (
	"context"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// eventsSQL reads the revisions of a range of versions with each version's
// dataset checksum and provenance; key, op, author and at come before the
// content in the revision row, so no overflow page is read.
const eventsSQL = `SELECT r.version, r.key, r.op, r.author, r.at, coalesce(v.checksum, ''),
	` + writeplan.ProvenanceColumns + `
	FROM revisions r LEFT JOIN versions v ON v.repo = r.repo AND v.version = r.version
	WHERE r.repo = ? AND r.version > ? AND r.version <= ? ORDER BY r.version, r.key`

// Events reads the changes after a version, one event per version; see
// server.Store.
func (db *DB) Events(ctx context.Context, repo string, after int64, limit int) ([]*server.Event, error) {
	last, err := writeplan.EventsRead{Repo: repo, After: after, Limit: limit}.Last(readState(ctx, db.reads.state, repo))
	if err != nil || last == after {
		return []*server.Event{}, err
	}
	rows, err := db.read.QueryContext(ctx, eventsSQL, repo, after, last)
	if err != nil {
		return nil, wrap("read events", err)
	}
	defer rows.Close()
	evs := writeplan.EventRows{Repo: repo, Events: []*server.Event{}}
	var version, at int64
	var key, op, sum string
	var prov server.Provenance
	dest := append([]any{&version, &key, &op, &prov.Subject, &at, &sum}, writeplan.ProvenanceDest(&prov)...)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, wrap("read events", err)
		}
		evs.Add(version, key, server.Op(op), fromMicros(at), sum, prov)
	}
	return evs.Events, wrap("read events", rows.Err())
}
