// Package mcp serves team memory over the Model Context Protocol on /mcp of
// teammem-server: the SDK's streamable HTTP transport in stateless mode
// (every request stands alone, so any replica answers it), with the tools
// of mcptools over the domain Service for the request's caller. The HTTP
// layer (server/httpapi) authenticates the bearer token and rate-limits
// before a request gets here.
package mcp

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/mcptools"
	"github.com/teammem/teammem/server"
)

// Options configure the endpoint.
type Options struct {
	Service *server.Service
	// Principal returns the authenticated caller of a request
	// (httpapi.RequestPrincipal).
	Principal func(*http.Request) server.Principal
	// RequestID returns a request's id for log lines (may be nil).
	RequestID func(*http.Request) string
	// Logger gets one line per tool call (tool, outcome, repo, key,
	// subject, duration; never content, queries or tokens) and failures.
	Logger *slog.Logger
	// ObserveToolCall records a call's metrics (may be nil).
	ObserveToolCall func(tool, outcome string, d time.Duration)
	// Version is reported to clients.
	Version string
	// NoAccessLog leaves out the line per tool call.
	NoAccessLog bool
}

// New returns the /mcp handler.
func New(o Options) http.Handler {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.RequestID == nil {
		o.RequestID = func(*http.Request) string { return "" }
	}
	cache := sdk.NewSchemaCache()
	serverFor := func(r *http.Request) *sdk.Server {
		p, id := o.Principal(r), o.RequestID(r)
		b := &backend{svc: o.Service, p: p, log: o.Logger, requestID: id}
		return mcptools.NewServer(b, mcptools.Options{Version: o.Version, SchemaCache: cache,
			Observe: func(ctx context.Context, c mcptools.Call) { o.observe(ctx, c, p.Subject, id) }})
	}
	return sdk.NewStreamableHTTPHandler(serverFor, &sdk.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		Logger:       o.Logger,
		// A call's arguments are one entry and an index line at most: the
		// REST body limit bounds them too.
		MaxRequestBodyBytes: o.Service.Limits().MaxBodyBytes,
	})
}

// observe records one tool call: metrics and the access log line.
func (o Options) observe(ctx context.Context, c mcptools.Call, subject, requestID string) {
	if o.ObserveToolCall != nil {
		o.ObserveToolCall(c.Tool, c.Outcome, c.Duration)
	}
	if o.NoAccessLog && c.Outcome != mcptools.OutcomeFailed {
		return
	}
	attrs := []slog.Attr{slog.String("tool", c.Tool), slog.String("outcome", c.Outcome), slog.String("repo", c.Repo),
		slog.String("subject", subject), slog.Duration("duration", c.Duration)}
	if c.Key != "" {
		attrs = append(attrs, slog.String("key", c.Key))
	}
	if requestID != "" {
		attrs = append(attrs, slog.String("request_id", requestID))
	}
	o.Logger.LogAttrs(ctx, slog.LevelInfo, "mcp tool call", attrs...)
}
