package mcp

import (
	"context"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/server"
)

// The client a tool call came from, for the provenance of its writes: the
// MCP client's clientInfo ("name/version") where the protocol carries it
// (in every request's _meta from the 2026-07-28 protocol on; a stateless
// server never sees an earlier client's initialize again), else the HTTP
// request's User-Agent.
type (
	clientInfoKey struct{}
	userAgentKey  struct{}
)

// withUserAgent keeps the request's User-Agent in its context for the
// tools.
func withUserAgent(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userAgentKey{}, r.UserAgent())))
	})
}

// clientInfo is the SDK middleware that keeps a tool call's clientInfo in
// its context.
func clientInfo(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if call, ok := req.(*sdk.CallToolRequest); ok {
			if ci := call.ClientInfo(); ci != nil && ci.Name != "" {
				name := ci.Name
				if ci.Version != "" {
					name += "/" + ci.Version
				}
				ctx = context.WithValue(ctx, clientInfoKey{}, name)
			}
		}
		return next(ctx, method, req)
	}
}

// clientOf returns the client of the call ctx belongs to, made harmless
// (server.CleanClient).
func clientOf(ctx context.Context) string {
	if name, ok := ctx.Value(clientInfoKey{}).(string); ok {
		return server.CleanClient(name)
	}
	ua, _ := ctx.Value(userAgentKey{}).(string)
	return server.CleanClient(ua)
}
