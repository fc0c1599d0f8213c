// Package mcp serves team memory over the Model Context Protocol on /mcp of
// teammem-server: the SDK's streamable HTTP transport in stateless mode
// (every request stands alone, so any replica answers it), with the tools
// of mcptools over the domain Service for the request's caller. The router
// (server/router) mounts it at Path behind httpkit's VerifyCaller, which
// verifies the bearer token and records the caller that the tools act
// for; the caller's rate limit is applied here, per tool call.
//
// One request is one budget: a request holds one JSON-RPC message (batches
// are refused, and only the protocol revisions without them are
// negotiated), each tool call takes a token of its caller's rate limit,
// waits for one of its caller's few seats, runs under a deadline and
// answers a reply of bounded size; past any bound it is a tool error that
// says which.
package mcp

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/mcptools"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
	"github.com/teammem/teammem/server/httpkit"
)

// Path is where the router mounts the endpoint.
const Path = "/mcp"

// Options configure the endpoint.
type Options struct {
	Service *server.Service
	// Logger gets one line per tool call (tool, outcome, repo, key,
	// subject, duration; never content, queries or tokens) and failures.
	Logger *slog.Logger
	// ObserveToolCall records a call's metrics (may be nil).
	ObserveToolCall func(tool, outcome string, d time.Duration)
	// Version is reported to clients.
	Version string
	// NoAccessLog leaves out the line per tool call.
	NoAccessLog bool
	// Limiter is the callers' rate limit, shared with the other surfaces
	// (nil: none): each tool call takes one token of its caller, and so
	// does each other request holding a call (initialize, tools/list).
	Limiter *httpkit.Limiter
	// RateLimited counts a call or request refused for the rate limit
	// (may be nil).
	RateLimited func()
	// CallTimeout bounds each tool call's time (DefaultCallTimeout when 0).
	CallTimeout time.Duration
	// MaxReplyBytes bounds each tool call's reply (DefaultMaxReplyBytes
	// when 0).
	MaxReplyBytes int
	// CallsPerCaller bounds the tool calls of one caller running at once
	// (DefaultCallsPerCaller when 0); more wait, within their time.
	CallsPerCaller int
	// Health makes memory_health's reports (nil: one over Service with
	// the default settings).
	Health *health.Checker
}

// New returns the /mcp handler. Its tools act for httpkit.Principal of the
// request: a request that did not pass httpkit's Authenticate is nobody,
// who may read and write nothing.
func New(o Options) http.Handler {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o = o.withDefaults()
	if o.Health == nil {
		o.Health = &health.Checker{Service: o.Service}
	}
	b := &backend{svc: o.Service, health: o.Health, log: o.Logger, caller: callerOf}
	// One server for every request: building one per request costs more
	// than most calls (the SDK checks each tool's schema as it is added).
	// The caller travels in the request's context (httpkit's Info), which
	// the stateless handler hands to the tools.
	srv := mcptools.NewServer(b, mcptools.Options{Version: o.Version, Budget: o.budget(), ProtocolVersions: revisions(),
		Observe: func(ctx context.Context, c mcptools.Call) { o.observe(ctx, c) }})
	srv.AddReceivingMiddleware(clientInfo)
	// A call's arguments are one entry and an index line at most: the REST
	// body limit bounds them too.
	maxBody := o.Service.Limits().MaxBodyBytes
	return withUserAgent(&door{maxBody: maxBody, limiter: o.Limiter, limited: o.RateLimited,
		next: sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{
			Stateless:           true,
			JSONResponse:        true,
			Logger:              o.Logger,
			MaxRequestBodyBytes: maxBody,
			// The router checks Host on every route (httpkit.CheckHost),
			// names given with --public-host included; the SDK's own check
			// would refuse those on a loopback listener.
			DisableLocalhostProtection: true,
		})})
}

// revisions are the protocol revisions /mcp negotiates: those the SDK
// supports from the first without JSON-RPC batches on. (The SDK serves a
// batch to a request naming no revision; the door refuses it.)
func revisions() []string {
	return slices.DeleteFunc(sdk.SupportedProtocolVersions(), func(v string) bool { return v < firstRevisionWithoutBatches })
}

// callerOf returns the caller of the HTTP request a tool call came in and
// the request's id; a context without them is nobody, who may read nothing.
func callerOf(ctx context.Context) (server.Principal, string) {
	info := httpkit.InfoOf(ctx)
	return info.Principal, info.ID
}

// observe records one tool call: metrics and the access log line.
func (o Options) observe(ctx context.Context, c mcptools.Call) {
	p, requestID := callerOf(ctx)
	if o.ObserveToolCall != nil {
		o.ObserveToolCall(c.Tool, c.Outcome, c.Duration)
	}
	if o.NoAccessLog && c.Outcome != mcptools.OutcomeFailed {
		return
	}
	attrs := []slog.Attr{slog.String("tool", c.Tool), slog.String("outcome", c.Outcome), slog.String("repo", c.Repo),
		slog.String("subject", p.Subject), slog.Duration("duration", c.Duration)}
	if c.Key != "" {
		attrs = append(attrs, slog.String("key", c.Key))
	}
	if requestID != "" {
		attrs = append(attrs, slog.String("request_id", requestID))
	}
	o.Logger.LogAttrs(ctx, slog.LevelInfo, "mcp tool call", attrs...)
}
