package writeplan

import (
	"context"
	"fmt"
	"sync"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// Tx is one write transaction of a store, begun by the function given to
// Cache.Apply. Each method returns errors already wrapped the way the store
// reports them (server.ErrUnavailable for a lost connection).
type Tx interface {
	// Lock serialises writers of repo until Commit or Rollback and returns
	// its current state; Version 0 and the empty checksum when the
	// repository never held data.
	Lock(ctx context.Context, repo string) (server.RepoState, error)
	// Live calls add for every live entry of repo in increasing key byte
	// order.
	Live(ctx context.Context, repo string, add func(key string, e Entry)) error
	// Save stores the plan's changes, one revision per change, and the
	// repository's new state.
	Save(ctx context.Context, p *Plan) error
	// Commit commits the transaction.
	Commit(ctx context.Context) error
	// Rollback abandons the transaction; it is called after a failure or
	// when nothing changed, and may be called after Commit. ctx is the
	// write's: Rollback must end the transaction even when ctx is done,
	// and must not hold the caller long past ctx's deadline.
	Rollback(ctx context.Context) error
}

// maxCached bounds how many repositories a Cache holds.
const maxCached = 512

// Cache holds the live Set of recently written repositories, each tagged
// with the version it reflects. A Set is used only when the version read
// under the write lock equals its own, so several processes writing one
// database stay correct: a stale Set is simply rebuilt. It is safe for
// concurrent use.
type Cache struct {
	mu   sync.Mutex
	sets map[string]*Set
}

// take removes and returns the cached Set of repo when it reflects version.
func (c *Cache) take(repo string, version int64) (*Set, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sets[repo]
	delete(c.sets, repo)
	return s, ok && s.version == version
}

// keep stores the Set of repo, evicting an arbitrary one when full.
func (c *Cache) keep(repo string, s *Set) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sets == nil {
		c.sets = map[string]*Set{}
	}
	if len(c.sets) >= maxCached {
		for k := range c.sets {
			delete(c.sets, k)
			break
		}
	}
	c.sets[repo] = s
}

// Holds reports whether the cached Set of repo reflects version.
func (c *Cache) Holds(repo string, version int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sets[repo]
	return ok && s.version == version
}

// Forget drops the cached Set of repo: a store calls it when a
// transaction whose plans already moved the Set forward failed to commit.
func (c *Cache) Forget(repo string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.sets, repo)
}

// Apply performs w in one transaction from begin: it locks the repository,
// plans the write against its live set (from the cache when current, else
// read through Tx.Live), saves and commits it when anything changed, and
// rolls back otherwise. It implements server.Store.Apply's contract.
func (c *Cache) Apply(ctx context.Context, begin func(context.Context) (Tx, error), w server.Write) (server.WriteResult, error) {
	res, err := c.apply(ctx, begin, w)
	if err != nil {
		return server.WriteResult{}, fmt.Errorf("apply write to %s: %w", w.Repo, err)
	}
	return res, nil
}

func (c *Cache) apply(ctx context.Context, begin func(context.Context) (Tx, error), w server.Write) (server.WriteResult, error) {
	tx, err := begin(ctx)
	if err != nil {
		return server.WriteResult{}, err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	cur, err := tx.Lock(ctx, w.Repo)
	if err != nil {
		return server.WriteResult{}, err
	}
	set, err := c.live(ctx, tx, cur)
	if err != nil {
		return server.WriteResult{}, err
	}
	p, err := set.plan(cur, w)
	if err != nil {
		c.keep(w.Repo, set)
		return server.WriteResult{}, err
	}
	if len(p.Changes) == 0 {
		c.keep(w.Repo, set)
		return server.WriteResult{State: cur, Changed: []string{}, Deleted: []string{}, Skipped: p.Skipped}, nil
	}
	set.apply(p)
	if err := tx.Save(ctx, p); err != nil {
		return server.WriteResult{}, err
	}
	if err := tx.Commit(ctx); err != nil {
		return server.WriteResult{}, err
	}
	c.keep(w.Repo, set)
	return server.WriteResult{State: p.State(), Changed: nonNil(p.Changed), Deleted: nonNil(p.Deleted), Skipped: p.Skipped}, nil
}

// live returns the repository's live Set at cur.Version.
func (c *Cache) live(ctx context.Context, tx Tx, cur server.RepoState) (*Set, error) {
	if s, ok := c.take(cur.Repo, cur.Version); ok {
		return s, nil
	}
	s := New(cur.Version)
	if cur.Version == 0 {
		return s, nil
	}
	if err := tx.Live(ctx, cur.Repo, s.Put); err != nil {
		return nil, err
	}
	return s, nil
}

// EmptyState returns the state of a repository that never held data.
func EmptyState(repo string) server.RepoState {
	return server.RepoState{Repo: repo, Checksum: protocol.EmptyDatasetChecksum}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// NewSnapshot returns an empty Snapshot of st to fill with the entries
// changed after since, or an error wrapping server.ErrSinceTooOld when
// tombstones after since were purged up to floor.
func NewSnapshot(st server.RepoState, floor, since int64) (server.Snapshot, error) {
	if since > 0 && since < floor {
		return server.Snapshot{}, fmt.Errorf("snapshot %s since %d (history starts at %d): %w",
			st.Repo, since, floor, server.ErrSinceTooOld)
	}
	return server.Snapshot{RepoState: st, Live: []server.Entry{}, Deleted: []server.Tombstone{}}, nil
}
