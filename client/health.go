package client

import (
	"context"
	"fmt"
	"net/http"

	"github.com/teammem/teammem/api"
)

// Healthz reports whether the server process is up (GET /healthz, no
// token). A non-2xx answer is an *APIError carrying the body's error text.
func (c *Client) Healthz(ctx context.Context) error {
	return c.probe(ctx, api.PathHealthz, "check health")
}

// Readyz reports whether the server can serve: store reachable, migrations
// current (GET /readyz, no token). Not ready is an *APIError (usually
// ErrServer, 503) whose Message is the server's reason.
func (c *Client) Readyz(ctx context.Context) error {
	return c.probe(ctx, api.PathReadyz, "check readiness")
}

// probe GETs an unauthenticated health path and discards a 2xx body.
func (c *Client) probe(ctx context.Context, path, verb string) error {
	if _, err := c.do(ctx, request{method: http.MethodGet, path: path}, nil); err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	return nil
}
