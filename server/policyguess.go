package server

import (
	"context"
	"sync"
)

// maxGuesses bounds how many repositories' policies a Service keeps in
// memory (see policyGuesses).
const maxGuesses = 4096

// policyGuesses holds, per repository, the review policy this process
// last learned: the one it read, set, or was told by a write that a
// policy changed (PolicyChangedError). It is a guess, never trusted
// alone: a write cut by it carries it in Write.Policy, and the store
// applies the write only while the repository's policy is still that one,
// inside the write's own transaction. A guess gone stale (a policy set
// through another replica sharing the database) costs that replica one
// retried write, and nothing needs to tell it of the change: a lost
// notice cannot leave it on a wrong policy.
type policyGuesses struct {
	mu     sync.Mutex
	byRepo map[string]ReviewPolicy
}

// get returns repo's guessed policy, reading it with read when none is
// kept.
func (g *policyGuesses) get(ctx context.Context, repo string, read func(context.Context, string) (ReviewPolicy, error)) (ReviewPolicy, error) {
	g.mu.Lock()
	p, ok := g.byRepo[repo]
	g.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err := read(ctx, repo)
	if err != nil {
		return "", err
	}
	g.put(repo, p)
	return p, nil
}

// put records repo's policy, evicting an arbitrary repository's when
// full.
func (g *policyGuesses) put(repo string, p ReviewPolicy) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.byRepo == nil {
		g.byRepo = map[string]ReviewPolicy{}
	}
	if _, ok := g.byRepo[repo]; !ok && len(g.byRepo) >= maxGuesses {
		for k := range g.byRepo {
			delete(g.byRepo, k)
			break
		}
	}
	g.byRepo[repo] = p
}
