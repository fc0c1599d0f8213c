package sqlite

import (
	"context"
	"sync"

	"github.com/teammem/teammem/server"
)

// states holds the state of every repository read or written since Open.
// It is authoritative because the DB holds the database's exclusive lock
// and the writer updates it after each commit, holding mu for writing
// across the COMMIT so that no reader sees the database ahead of it. It is
// safe for concurrent use.
type states struct {
	mu sync.RWMutex
	m  map[string]server.RepoState
}

func (s *states) get(repo string) (server.RepoState, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st, ok := s.m[repo]
	return st, ok
}

// load records a state read from the database unless a newer one is known
// (a write may have committed since it was read) and returns the state to
// report.
func (s *states) load(st server.RepoState) server.RepoState {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.m[st.Repo]; ok && cur.Version >= st.Version {
		return cur
	}
	s.m[st.Repo] = st
	return st
}

// setLocked records committed states; the caller holds mu.
func (s *states) setLocked(committed map[string]server.RepoState) {
	for repo, st := range committed {
		s.m[repo] = st
	}
}

// RepoState returns the repository's state from memory, reading it from
// the database the first time; see server.Store.
func (db *DB) RepoState(ctx context.Context, repo string) (server.RepoState, error) {
	if err := ctx.Err(); err != nil {
		return server.RepoState{}, wrap("read repository", err)
	}
	if st, ok := db.states.get(repo); ok {
		return st, nil
	}
	st, _, err := readState(ctx, db.reads.state, repo)
	if err != nil {
		return server.RepoState{}, err
	}
	return db.states.load(st), nil
}

// Precondition evaluates c against the repository's state (from memory);
// see server.Store.
func (db *DB) Precondition(ctx context.Context, repo string, c server.Preconditions) error {
	return server.CheckPreconditions(ctx, db.RepoState, repo, c)
}
