package httpapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// PathMCP is where Options.MCP is mounted: behind the same bearer-token
// authentication and rate limit as the REST API.
const PathMCP = "/mcp"

// mountMCP mounts the MCP endpoint in the authenticated group r.
func (h *handler) mountMCP(r chi.Router, mcp http.Handler) {
	if mcp != nil {
		r.Handle(PathMCP, mcp)
	}
}

// RequestPrincipal returns the caller of a request that passed the
// authentication of the handler (the MCP endpoint's requests do).
func RequestPrincipal(r *http.Request) server.Principal { return principal(r.Context()) }

// RequestID returns the request id of a request that passed the handler.
func RequestID(r *http.Request) string { return httpkit.RequestID(r.Context()) }
