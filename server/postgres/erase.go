package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// eraseRepo empties a locked repository row and moves it one version on;
// the notice tells the other servers (their hubs read the events after
// their last version, find the since-floor above it and reset their
// streams).
const eraseRepo = `UPDATE repos SET version = version + 1, checksum = $2, entries = 0, bytes = 0,
		updated_at = now(), since_floor = version + 1
	WHERE slug = $1 RETURNING version, checksum, entries, bytes, updated_at`

// EraseRepo empties a repository in one transaction; see server.Store.
func (db *DB) EraseRepo(ctx context.Context, repo string) (before, after server.RepoState, err error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	before, after = server.RepoState{Repo: repo}, server.RepoState{Repo: repo}
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var review string // the repository's policy survives its erasure
		err := tx.QueryRow(ctx, lockRepo, repo).Scan(&before.Version, &before.Checksum, &before.Entries, &before.Bytes, &before.UpdatedAt, &review)
		if errors.Is(err, pgx.ErrNoRows) || err == nil && before.Version == 0 {
			return fmt.Errorf("erase %s: %w", repo, server.ErrNotFound)
		}
		if err != nil {
			return wrap("lock repository", err)
		}
		for _, q := range []string{`DELETE FROM search_links WHERE repo = $1`, `DELETE FROM search_pending WHERE repo = $1`, `DELETE FROM revisions WHERE repo = $1`,
			`DELETE FROM versions WHERE repo = $1`, `DELETE FROM entries WHERE repo = $1`} {
			if _, err := tx.Exec(ctx, q, repo); err != nil {
				return wrap("erase repository", err)
			}
		}
		err = tx.QueryRow(ctx, eraseRepo, repo, protocol.EmptyDatasetChecksum).Scan(&after.Version, &after.Checksum,
			&after.Entries, &after.Bytes, &after.UpdatedAt)
		if err != nil {
			return wrap("erase repository", err)
		}
		rec := server.AuditRecordOfErase(server.AuditActorFrom(ctx), before, after, after.UpdatedAt)
		if err := appendAuditTx(ctx, tx, []server.AuditRecord{rec}); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, notify, eventsChannel, noticeOf(repo, after.Version))
		return wrap("announce the erase", err)
	})
	if err != nil {
		return server.RepoState{}, server.RepoState{}, err
	}
	before.UpdatedAt, after.UpdatedAt = before.UpdatedAt.UTC(), after.UpdatedAt.UTC()
	db.cache.Forget(repo)
	return before, after, nil
}
