package httpapi

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/teammem/teammem/server"
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
func RequestID(r *http.Request) string { return requestID(r.Context()) }

// toolCalls is the histogram of MCP tool calls.
func newToolCalls() *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "teammem_mcp_tool_call_duration_seconds", Help: "MCP tool calls by tool and outcome (ok, refused, failed), with their duration.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"tool", "outcome"})
}

// ObserveToolCall records one MCP tool call.
func (m *Metrics) ObserveToolCall(tool, outcome string, d time.Duration) {
	m.toolCalls.WithLabelValues(tool, outcome).Observe(d.Seconds())
}
