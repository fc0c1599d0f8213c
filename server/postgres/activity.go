package postgres

import (
	"context"
	"math"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// Activity lists the repository's versions newest first, with the keys
// each changed; see server.Store. Both queries are range scans of the
// (repo, version) index that stop after the page: the first reads the
// page's versions (and one more, to know whether there is a next page),
// the second the revisions between the page's first and last version.
func (db *DB) Activity(ctx context.Context, repo string, before int64, limit int) (server.ActivityPage, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	if before <= 0 {
		before = math.MaxInt64
	}
	rows, err := db.pool.Query(ctx, `SELECT DISTINCT version FROM revisions
		WHERE repo = $1 AND version < $2 ORDER BY version DESC LIMIT $3`, repo, before, limit+1)
	if err != nil {
		return server.ActivityPage{}, wrap("read activity", err)
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return server.ActivityPage{}, wrap("read activity", err)
	}
	var page server.ActivityPage
	if versions = page.Page(versions, limit); len(versions) == 0 {
		_, err := db.RepoState(ctx, repo)
		return page, err
	}
	rows, err = db.pool.Query(ctx, `SELECT r.version, r.key, r.op, r.checksum, r.author, r.at, `+writeplan.ProvenanceColumns+revisionFrom+`
		WHERE r.repo = $1 AND r.version >= $2 AND r.version <= $3 ORDER BY r.version DESC, r.key`,
		repo, versions[len(versions)-1], versions[0])
	if err != nil {
		return server.ActivityPage{}, wrap("read activity", err)
	}
	var r server.Revision
	dest := append([]any{&r.Version, &r.Key, &r.Op, &r.Checksum, &r.Author, &r.At}, writeplan.ProvenanceDest(&r.Provenance)...)
	_, err = pgx.ForEachRow(rows, dest, func() error {
		r.At, r.Provenance.Subject = r.At.UTC(), r.Author
		page.Add(r)
		return nil
	})
	if err != nil {
		return server.ActivityPage{}, wrap("read activity", err)
	}
	return page, nil
}
