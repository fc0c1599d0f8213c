// Package client is the Go SDK of the team memory protocol
// (spec/protocol.md): pull, hashes probe, push, history, revisions, repos,
// health and the events stream. It imports only the wire types of package api
// and the standard library, so CI tools can use it without the agent.
//
// Every method is safe for concurrent use. Errors are typed: a non-2xx answer
// is an *APIError that matches a sentinel with errors.Is (ErrNotFound,
// ErrPreconditionFailed, ...); a request that got no answer wraps ErrNetwork
// or ErrTimeout; IsRetryable and RetryAfter tell a caller whether and when to
// try again. The client never retries by itself and never logs.
package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of Options.
const (
	DefaultTimeout          = 60 * time.Second
	DefaultMaxResponseBytes = 64 << 20
	DefaultUserAgent        = "teammem-go-client"
)

// Options configures a Client. Zero values take the defaults.
type Options struct {
	// BaseURL is the server's root, http or https, without query, fragment or
	// credentials, such as "https://memory.example.com" or
	// "https://example.com/teammem" (a path prefix is kept).
	BaseURL string
	// Token is a static bearer token. Set at most one of Token and TokenSource;
	// with neither, requests carry no Authorization (the server's no-auth mode).
	Token string
	// TokenSource returns the bearer token for each request under /api/; its
	// error fails the request (wrapped, never retried by the client).
	TokenSource func(ctx context.Context) (string, error)
	// HTTPClient sends the requests; nil uses a client with a tuned transport
	// (keep-alive, dial/TLS/header timeouts). Its own Timeout, if any, also
	// cuts long-lived event streams.
	HTTPClient *http.Client
	// UserAgent is sent on every request; default DefaultUserAgent.
	UserAgent string
	// Machine names the host in the provenance of every push
	// (Teammem-Machine), kept to ASCII letters, digits, '.', '-' and '_'
	// and 64 of them; "" sends none.
	Machine string
	// Timeout bounds each request, reading its body included (event streams
	// excepted); 0 means DefaultTimeout, negative means none.
	Timeout time.Duration
	// MaxResponseBytes caps the body read from any response; a larger one is
	// ErrInvalidResponse. 0 means DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// StreamIdle is how long an event stream may stay silent before it
	// counts as broken; 0 means DefaultStreamIdle.
	StreamIdle time.Duration
}

// String describes o without its token.
func (o Options) String() string {
	return fmt.Sprintf("client.Options{BaseURL: %q, Token: %s, UserAgent: %q, Timeout: %s}",
		o.BaseURL, redacted(o.Token != "" || o.TokenSource != nil), o.UserAgent, o.Timeout)
}

// GoString is String, so that %#v does not print the token either.
func (o Options) GoString() string { return o.String() }

// Client talks to one teammem server. It is safe for concurrent use.
type Client struct {
	base      *url.URL
	token     func(ctx context.Context) (string, error)
	http      *http.Client
	userAgent string
	machine   string
	timeout   time.Duration
	maxBody   int64
	idle      time.Duration
	now       func() time.Time
}

// New validates opts and returns a Client. It fails when BaseURL is not an
// absolute http(s) URL without query, fragment or credentials, or when both
// Token and TokenSource are set.
func New(opts Options) (*Client, error) {
	base, err := parseBaseURL(opts.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("new client: %w", err)
	}
	if opts.Token != "" && opts.TokenSource != nil {
		return nil, errors.New("new client: set Token or TokenSource, not both")
	}
	c := &Client{
		base:      base,
		token:     tokenFunc(opts),
		http:      opts.HTTPClient,
		userAgent: cmp.Or(opts.UserAgent, DefaultUserAgent),
		machine:   machineName(opts.Machine),
		timeout:   opts.Timeout,
		maxBody:   opts.MaxResponseBytes,
		idle:      cmp.Or(opts.StreamIdle, DefaultStreamIdle),
		now:       time.Now,
	}
	if c.http == nil {
		c.http = &http.Client{Transport: defaultTransport()}
	}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	}
	if c.maxBody <= 0 {
		c.maxBody = DefaultMaxResponseBytes
	}
	return c, nil
}

// String describes c without its token.
func (c *Client) String() string {
	return fmt.Sprintf("client.Client{BaseURL: %q, Token: %s}", c.base.String(), redacted(c.token != nil))
}

// GoString is String, so that %#v does not print the token either.
func (c *Client) GoString() string { return c.String() }

// BaseURL returns the server's root as given to New, without a trailing slash.
func (c *Client) BaseURL() string { return c.base.String() }

// parseBaseURL checks raw and trims its trailing slash.
func parseBaseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw != "" && !strings.Contains(raw, "://") && !strings.HasPrefix(raw, "/") {
		return nil, fmt.Errorf("base URL %q has no scheme: did you mean %s?", raw, guessScheme(raw)+raw)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("parse base URL: %w", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("base URL %q: scheme must be http or https", raw)
	case u.Host == "":
		return nil, fmt.Errorf("base URL %q: no host", raw)
	case u.User != nil:
		return nil, errors.New("base URL: credentials in the URL are not allowed; use a token")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, fmt.Errorf("base URL %q: query and fragment are not allowed", raw)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	if base, ok := surfacePrefix(u.Path); ok {
		b := *u
		b.Path = base
		return nil, fmt.Errorf("base URL %q names a page of the server, not the server: did you mean %s?", raw, b.String())
	}
	return u, nil
}

// guessScheme is the scheme a URL without one most likely meant: http for
// this machine, https for any other.
func guessScheme(hostPort string) string {
	host := hostPort
	if h, _, err := net.SplitHostPort(hostPort); err == nil {
		host = h
	}
	host, _, _ = strings.Cut(host, "/")
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return "http://"
	}
	return "https://"
}

// surfacePrefix reports whether path ends in one of the server's own
// surfaces (the web UI's /ui, /mcp, /api/...), as a URL copied from the
// browser's address bar does, and returns the path before it.
func surfacePrefix(path string) (string, bool) {
	for _, s := range []string{"/ui", "/mcp", "/api"} {
		if i := strings.LastIndex(path+"/", s+"/"); i >= 0 {
			return path[:i], true
		}
	}
	return "", false
}

// tokenFunc turns the token options into one function, nil without a token.
func tokenFunc(opts Options) func(ctx context.Context) (string, error) {
	if opts.TokenSource != nil {
		return opts.TokenSource
	}
	if opts.Token == "" {
		return nil
	}
	tok := opts.Token
	return func(context.Context) (string, error) { return tok, nil }
}

// defaultTransport is http.DefaultTransport's setup with explicit timeouts.
func defaultTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// redacted says whether a secret is set without showing it.
func redacted(set bool) string {
	if set {
		return "[redacted]"
	}
	return "none"
}
