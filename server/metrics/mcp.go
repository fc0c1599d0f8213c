package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// newToolCalls is the histogram of MCP tool calls.
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
