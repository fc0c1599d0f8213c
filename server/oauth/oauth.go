// Package oauth is the server's OAuth 2.1 authorization server for its own
// protected resources, the REST API and /mcp: their metadata (RFC 9728)
// and its own (RFC 8414), the authorization endpoint (PKCE S256, exact
// redirect URIs, the issuer in the answer per RFC 9207), the token
// endpoint (authorization codes; refresh tokens rotated at every use, a
// replay revoking the family), clients identified by a Client ID Metadata
// Document or registered dynamically (RFC 7591), and the resource
// indicator (RFC 8707) that binds each access token to one resource. The
// person consents on the web UI (server.Authorizer, which this package
// implements); server/router mounts both. A device without a browser
// signs in by the device authorization grant (RFC 8628): the person enters
// its user code on the web UI (server.DeviceAuthorizer).
package oauth

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/httpkit"
)

// Paths of the authorization server's endpoints.
const (
	PathMetadata  = "/.well-known/oauth-authorization-server"
	PathAuthorize = "/oauth/authorize"
	PathToken     = "/oauth/token"
	PathRegister  = "/oauth/register"
	// ConsentPath is the web UI's consent page, where /oauth/authorize
	// sends the browser.
	ConsentPath = "/ui/oauth/consent"
)

// Lifetimes.
const (
	DefaultAccessTTL  = 10 * time.Minute
	DefaultSessionTTL = 30 * 24 * time.Hour
	codeTTL           = 2 * time.Minute
)

// Options configure the authorization server.
type Options struct {
	Store  server.OAuthStore
	Issuer *auth.Issuer
	// Revocations, when set, is read at every refresh: a session whose
	// person's credential was revoked dies. Revoking a session records
	// its id there, so its access tokens are refused at once.
	Revocations server.RevocationStore
	Middleware  *httpkit.Middleware
	// PublicURL is the server's base URL ("": each request's; see
	// httpkit.BaseURL).
	PublicURL string
	// AccessTTL is an access token's lifetime (DefaultAccessTTL when 0);
	// SessionTTL a session's longest life (DefaultSessionTTL when 0).
	AccessTTL, SessionTTL time.Duration
	// MetadataClient fetches Client ID Metadata Documents (nil: one that
	// refuses private and loopback addresses; see NewMetadataClient).
	MetadataClient *http.Client
	// Devices, when set, keeps device authorizations: the server then
	// takes the device authorization grant (RFC 8628), polled at most
	// every DeviceInterval (DefaultDeviceInterval when 0).
	Devices        server.DeviceStore
	DeviceInterval time.Duration
	// SignIns, when set, keeps the sign-ins with the identity provider
	// that sessions consented from a provider sign-in descend from: such
	// a session outlives the web session it was consented in, its grants
	// narrowed at every refresh to those the provider still gives, and it
	// ends with the sign-in.
	SignIns *server.SignIns
	Now     func() time.Time
	Logger  *slog.Logger
}

// Server is the authorization server. It implements server.Authorizer.
type Server struct {
	o       Options
	clients *clientCache
}

var _ server.Authorizer = (*Server)(nil)

// New returns the authorization server.
func New(o Options) *Server {
	if o.AccessTTL <= 0 {
		o.AccessTTL = DefaultAccessTTL
	}
	if o.SessionTTL <= 0 {
		o.SessionTTL = DefaultSessionTTL
	}
	if o.DeviceInterval <= 0 {
		o.DeviceInterval = DefaultDeviceInterval
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MetadataClient == nil {
		o.MetadataClient = NewMetadataClient(false)
	}
	return &Server{o: o, clients: newClientCache()}
}

// Mount serves the metadata and the endpoints on r. They take no cookie,
// so any origin may call them (CORS), as browser-based MCP clients do.
func (s *Server) Mount(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(anyOrigin)
		r.Get(httpkit.WellKnownResource, s.resourceMetadata)
		r.Get(httpkit.WellKnownResource+httpkit.MCPPath, s.resourceMetadata)
		r.Get(PathMetadata, s.serverMetadata)
		r.Post(PathToken, s.token)
		r.Post(PathRegister, s.register)
		paths := []string{httpkit.WellKnownResource, httpkit.WellKnownResource + httpkit.MCPPath, PathMetadata, PathToken, PathRegister}
		if s.o.Devices != nil {
			r.Post(PathDeviceAuthorization, s.deviceAuthorization)
			paths = append(paths, PathDeviceAuthorization)
		}
		for _, p := range paths {
			r.Options(p, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
		}
	})
	r.Get(PathAuthorize, s.authorize)
}

// anyOrigin allows cross-origin calls without credentials.
func anyOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, MCP-Protocol-Version")
		next.ServeHTTP(w, r)
	})
}

// base is the server's base URL for r.
func (s *Server) base(r *http.Request) string { return httpkit.BaseURL(r, s.o.PublicURL) }
