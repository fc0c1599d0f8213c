package agent

import (
	"context"

	"github.com/teammem/teammem/client"
)

// withSurface returns ctx whose pushes say they are of surface ("seed",
// "restore"), keeping the commit ctx carries.
func withSurface(ctx context.Context, surface string) context.Context {
	p := client.ProvenanceOf(ctx)
	p.Surface = surface
	return client.WithProvenance(ctx, p)
}

// withHead returns ctx whose pushes name the checkout's HEAD commit as it
// is now (Config.Head), keeping the surface ctx carries.
func (e *Engine) withHead(ctx context.Context) context.Context {
	if e.cfg.Head == nil {
		return ctx
	}
	p := client.ProvenanceOf(ctx)
	p.Commit = e.cfg.Head()
	return client.WithProvenance(ctx, p)
}
