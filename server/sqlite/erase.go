package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// eraseJob is one Store.EraseRepo.
type eraseJob struct {
	ctx           context.Context
	repo          string
	before, after server.RepoState
	err           error
	done          chan struct{}
}

func (j *eraseJob) context() context.Context { return j.ctx }

func (j *eraseJob) conditional() bool { return false }

// The statements of an erase; the search text goes first, while the
// entries it indexes are still listed.
var eraseSQL = []string{
	`DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_docs WHERE repo = ?1)`,
	`DELETE FROM search_titles_fts WHERE rowid IN (SELECT id FROM search_docs WHERE repo = ?1)`,
	`DELETE FROM search_names_fts WHERE rowid IN (SELECT id FROM search_docs WHERE repo = ?1)`,
	`DELETE FROM search_docs WHERE repo = ?1`,
	`DELETE FROM search_links_fts WHERE rowid IN (SELECT id FROM search_links WHERE repo = ?1)`,
	`DELETE FROM search_links WHERE repo = ?1`,
	`DELETE FROM revisions WHERE repo = ?1`,
	`DELETE FROM versions WHERE repo = ?1`,
	`DELETE FROM entries WHERE repo = ?1`,
}

func (j *eraseJob) run(ctx context.Context, b *batch) error {
	return b.inSavepoint(ctx, func() error {
		st, err := b.state(ctx, j.repo)
		if err != nil {
			return err
		}
		if st.Version == 0 {
			return fmt.Errorf("erase %s: %w", j.repo, server.ErrNotFound)
		}
		for _, q := range eraseSQL {
			if _, err := b.tx.ExecContext(ctx, q, j.repo); err != nil {
				return wrap("erase repository", err)
			}
		}
		after := server.RepoState{Repo: j.repo, Version: st.Version + 1, Checksum: protocol.EmptyDatasetChecksum,
			UpdatedAt: time.Now().UTC().Truncate(time.Microsecond)}
		if err := b.saveRepo(ctx, after); err != nil {
			return err
		}
		if _, err := b.tx.ExecContext(ctx, `UPDATE repos SET since_floor = ? WHERE slug = ?`, after.Version, j.repo); err != nil {
			return wrap("raise since floor", err)
		}
		rec := server.AuditRecordOfErase(server.AuditActorFrom(j.ctx), st, after, after.UpdatedAt)
		if err := b.audit.append(ctx, []server.AuditRecord{rec}); err != nil {
			return err
		}
		j.before, j.after = st, after
		b.pending[j.repo] = after
		b.changed, b.purged = true, true
		return nil
	})
}

func (j *eraseJob) finish(err error) {
	if err != nil {
		j.before, j.after, j.err = server.RepoState{}, server.RepoState{}, err
	}
	close(j.done)
}

// EraseRepo empties a repository in the writer's next batch; see
// server.Store.
func (db *DB) EraseRepo(ctx context.Context, repo string) (before, after server.RepoState, err error) {
	j := &eraseJob{ctx: ctx, repo: repo, done: make(chan struct{})}
	if err := db.writer.submit(ctx, j, j.done); err != nil {
		return server.RepoState{}, server.RepoState{}, fmt.Errorf("erase %s: %w", repo, err)
	}
	return j.before, j.after, j.err
}
