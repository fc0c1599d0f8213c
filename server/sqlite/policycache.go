package sqlite

import (
	"context"
	"sync"

	"github.com/teammem/teammem/server"
)

// policyCache holds every repository's review policy in memory, read from
// the file once: every write reads its repository's policy, and the file
// has one process at a time (its lock), whose SetReviewPolicy is the only
// way a policy changes while it runs. The writer records a policy set once
// its batch commits, before it begins the next: a write it checks
// (server.Write's Policy, see batch.checkPolicy) sees every policy set
// before it, committed or earlier in its own batch.
type policyCache struct {
	mu     sync.RWMutex
	loaded bool
	byRepo map[string]server.ReviewPolicy
}

// get returns repo's policy, reading them all with load the first time.
func (c *policyCache) get(ctx context.Context, repo string, load func(context.Context) (map[string]server.ReviewPolicy, error)) (server.ReviewPolicy, error) {
	c.mu.RLock()
	p, loaded := c.byRepo[repo], c.loaded
	c.mu.RUnlock()
	if !loaded {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.loaded {
			all, err := load(ctx)
			if err != nil {
				return "", err
			}
			c.byRepo, c.loaded = all, true
		}
		p = c.byRepo[repo]
	}
	if p == "" {
		return server.ReviewOff, nil
	}
	return p, nil
}

// set records repo's policy once it is committed. Before the first load
// it changes nothing: the load reads it from the file.
func (c *policyCache) set(repo string, p server.ReviewPolicy) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded {
		c.byRepo[repo] = p
	}
}
