package httpkit

import (
	"net/http"
	"strings"

	"github.com/teammem/teammem/server/auth"
)

// The server is an OAuth 2.1 protected resource twice over: the REST API,
// named by the server's base URL, and /mcp, named by its own URL. An OAuth
// access token names one of them as its audience (RFC 8707) and is refused
// by the other; a teammem token of audience "teammem" is good on both.

// MCPPath is where /mcp is served: requests under it are for the MCP
// resource.
const MCPPath = "/mcp"

// WellKnownResource is the path of the protected resource metadata (RFC
// 9728) of the API; /mcp's is this path followed by /mcp.
const WellKnownResource = "/.well-known/oauth-protected-resource"

// BaseURL is the server's base URL as a client reaches it: public, when
// the server was told it (--public-url), or the request's scheme (https
// when it came over TLS or a proxy says so) and Host.
func BaseURL(r *http.Request, public string) string {
	if public != "" {
		return strings.TrimSuffix(public, "/")
	}
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// ResourceOf is the protected resource a request is for: /mcp's URL under
// /mcp, the base URL everywhere else.
func ResourceOf(r *http.Request, public string) string {
	base := BaseURL(r, public)
	if r.URL.Path == MCPPath || strings.HasPrefix(r.URL.Path, MCPPath+"/") {
		return base + MCPPath
	}
	return base
}

// ResourceMetadataURL is where the metadata of the request's resource is.
func ResourceMetadataURL(r *http.Request, public string) string {
	base := BaseURL(r, public)
	if res := ResourceOf(r, public); res != base {
		return base + WellKnownResource + strings.TrimPrefix(res, base)
	}
	return base + WellKnownResource
}

// checkResource refuses an OAuth access token presented to a resource
// other than the one it was issued for.
func (m *Middleware) checkResource(r *http.Request, resource string) error {
	if resource == "" || resource == ResourceOf(r, m.PublicURL) {
		return nil
	}
	return &auth.AuthError{Reason: "the token was issued for another resource (" + resource + "); ask for one for " + ResourceOf(r, m.PublicURL)}
}

// challenge is the WWW-Authenticate header of a 401: with OAuth on, it
// names the resource's metadata (RFC 9728), where a client finds the
// authorization server.
func (m *Middleware) challenge(r *http.Request) string {
	if !m.OAuth {
		return `Bearer realm="teammem"`
	}
	return `Bearer realm="teammem", resource_metadata="` + ResourceMetadataURL(r, m.PublicURL) + `"`
}
