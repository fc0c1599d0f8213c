package sqlite

import (
	"context"
	"math"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// Activity lists the repository's versions newest first, with the keys
// each changed; see server.Store. It reads as the Postgres store does: the
// page's versions and one more, then the revisions between the page's
// first and last version, both from the (repo, version) index.
func (db *DB) Activity(ctx context.Context, repo string, before int64, limit int) (server.ActivityPage, error) {
	if before <= 0 {
		before = math.MaxInt64
	}
	versions, err := db.activityVersions(ctx, repo, before, limit+1)
	if err != nil {
		return server.ActivityPage{}, err
	}
	var page server.ActivityPage
	if versions = page.Page(versions, limit); len(versions) == 0 {
		_, err := db.RepoState(ctx, repo)
		return page, err
	}
	rows, err := db.read.QueryContext(ctx, `SELECT r.version, r.key, r.op, r.checksum, r.author, r.at, `+writeplan.ProvenanceColumns+revisionFrom+`
		WHERE r.repo = ? AND r.version >= ? AND r.version <= ? ORDER BY r.version DESC, r.key`,
		repo, versions[len(versions)-1], versions[0])
	if err != nil {
		return server.ActivityPage{}, wrap("read activity", err)
	}
	defer rows.Close()
	var r server.Revision
	var at int64
	dest := append([]any{&r.Version, &r.Key, &r.Op, &r.Checksum, &r.Author, &at}, writeplan.ProvenanceDest(&r.Provenance)...)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return server.ActivityPage{}, wrap("read activity", err)
		}
		r.At, r.Provenance.Subject = fromMicros(at), r.Author
		page.Add(r)
	}
	return page, wrap("read activity", rows.Err())
}

// activityVersions returns at most limit versions of repo below before,
// newest first.
func (db *DB) activityVersions(ctx context.Context, repo string, before int64, limit int) ([]int64, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT DISTINCT version FROM revisions
		WHERE repo = ? AND version < ? ORDER BY version DESC LIMIT ?`, repo, before, limit)
	if err != nil {
		return nil, wrap("read activity", err)
	}
	defer rows.Close()
	var vs []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, wrap("read activity", err)
		}
		vs = append(vs, v)
	}
	return vs, wrap("read activity", rows.Err())
}
