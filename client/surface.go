package client

import (
	"context"

	"github.com/teammem/teammem/api"
)

// SurfaceHeader names, on a push, what made the write (a consolidation,
// a seed, a restore, teammem-agent's MCP server), for the server's record
// of where a revision came from (api.HeaderSurface).
const SurfaceHeader = api.HeaderSurface

// WithSurface returns ctx marking the pushes made with it as made by
// surface (sent as the Teammem-Surface header), keeping the commit ctx
// carries.
func WithSurface(ctx context.Context, surface string) context.Context {
	p := ProvenanceOf(ctx)
	p.Surface = surface
	return context.WithValue(ctx, provenanceKey{}, p)
}

// Surface returns the surface ctx marks its pushes with, "" for none.
func Surface(ctx context.Context) string {
	return ProvenanceOf(ctx).Surface
}
