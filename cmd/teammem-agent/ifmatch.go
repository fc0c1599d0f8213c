package main

import (
	"context"
	"errors"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/agent"
)

// ifMatchGuard makes every push after the repo exists conditional.
//
// The engine pushes without If-Match while its view says the repo never
// held data (a 404 on the first pull), but it does not clear that mark
// after its own first push succeeds (client/agent: Engine.pushed leaves
// serverView.missing set), so every later push of the same process would
// be unconditional and could overwrite another agent's edit. The guard
// remembers the dataset checksum of the last answer (pull, hashes, push)
// and supplies it when the engine sends none. The engine's own If-Match,
// when it sends one, always wins.
type ifMatchGuard struct {
	agent.Remote
	known string // dataset checksum last seen; "" while the repo does not exist
}

// Get remembers the pulled checksum.
func (g *ifMatchGuard) Get(ctx context.Context, repo string, opts client.GetOptions) (*api.TeamMemory, error) {
	m, err := g.Remote.Get(ctx, repo, opts)
	g.seen(err, func() string { return m.Checksum })
	return m, err
}

// Hashes remembers the probed checksum.
func (g *ifMatchGuard) Hashes(ctx context.Context, repo string) (*api.Hashes, error) {
	h, err := g.Remote.Hashes(ctx, repo)
	g.seen(err, func() string { return h.Checksum })
	return h, err
}

// Put supplies the last known checksum when the engine sends no If-Match.
func (g *ifMatchGuard) Put(ctx context.Context, repo string, req api.PutRequest, ifMatch string) (*api.PutResponse, error) {
	if ifMatch == "" {
		ifMatch = g.known
	}
	resp, err := g.Remote.Put(ctx, repo, req, ifMatch)
	if err == nil {
		g.known = resp.Checksum
	}
	return resp, err
}

// seen updates the known checksum from an answer: a success gives it, a
// 404 clears it, anything else (304 included) leaves it.
func (g *ifMatchGuard) seen(err error, checksum func() string) {
	switch {
	case err == nil:
		g.known = checksum()
	case errors.Is(err, client.ErrNotFound):
		g.known = ""
	}
}
