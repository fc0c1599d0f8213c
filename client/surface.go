package client

import (
	"context"
	"net/http"
)

// SurfaceHeader names, on a push, what made the write (a consolidation,
// a seed, a restore), for the server's record of where a revision came
// from. A server that keeps no such record ignores it.
const SurfaceHeader = "Teammem-Surface"

// surfaceKey is the context key of WithSurface.
type surfaceKey struct{}

// WithSurface returns ctx marking the pushes made with it as made by
// surface (sent as the Teammem-Surface header).
func WithSurface(ctx context.Context, surface string) context.Context {
	return context.WithValue(ctx, surfaceKey{}, surface)
}

// Surface returns the surface ctx marks its pushes with, "" for none.
func Surface(ctx context.Context) string {
	s, _ := ctx.Value(surfaceKey{}).(string)
	return s
}

// setSurface sets the Teammem-Surface header of h from ctx, when it names
// one.
func setSurface(ctx context.Context, h http.Header) http.Header {
	s := Surface(ctx)
	if s == "" {
		return h
	}
	if h == nil {
		h = http.Header{}
	}
	h.Set(SurfaceHeader, s)
	return h
}
