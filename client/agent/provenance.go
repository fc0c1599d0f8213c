package agent

import (
	"context"

	"github.com/teammem/teammem/client"
)

// withHead returns ctx whose pushes name the checkout's HEAD commit as it
// is now (Config.Head), keeping the surface ctx carries.
func (e *Engine) withHead(ctx context.Context) context.Context {
	if e.cfg.Head == nil {
		return ctx
	}
	return client.WithCommit(ctx, e.cfg.Head())
}
