package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/teammem/teammem/server"
)

// client is an OAuth client as the endpoints see it, registered or
// described by its metadata document.
type client struct {
	ID           string
	Name         string
	RedirectURIs []string
}

// Bounds of a client's description.
const (
	maxRedirectURIs  = 10
	maxRedirectURI   = 2000
	maxClientName    = 200
	maxMetadataBytes = 64 << 10
	metadataTTL      = 5 * time.Minute
	maxCachedClients = 1000
)

// resolve returns the client with id: fetched from its metadata document
// when the id is an https URL, else registered.
func (s *Server) resolve(ctx context.Context, id string) (client, error) {
	if strings.HasPrefix(id, "https://") {
		return s.metadataClient(ctx, id)
	}
	c, err := s.o.Store.OAuthClient(ctx, id)
	if errors.Is(err, server.ErrNotFound) {
		return client{}, server.InvalidParameter("the client %.80q is not registered with this server", id)
	}
	if err != nil {
		return client{}, err
	}
	return client{ID: c.ID, Name: c.Name, RedirectURIs: c.RedirectURIs}, nil
}

// checkRedirectURI reports a redirect URI a client may not register: not
// absolute, with a fragment, plain http to a host other than the loopback,
// or too long.
func checkRedirectURI(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil || !u.IsAbs() || len(s) > maxRedirectURI:
		return fmt.Errorf("%.80q is not an absolute URI", s)
	case u.Fragment != "" || strings.Contains(s, "#"):
		return fmt.Errorf("%.80q has a fragment", s)
	case u.Scheme == "http" && !loopbackHost(u.Hostname()):
		return fmt.Errorf("%.80q is plain http to a host other than this machine's loopback", s)
	case (u.Scheme == "http" || u.Scheme == "https") && u.Host == "":
		return fmt.Errorf("%.80q names no host", s)
	case u.Scheme == "javascript" || u.Scheme == "data" || u.Scheme == "file" || u.Scheme == "vbscript":
		return fmt.Errorf("%.80q has a scheme no redirect may have", s)
	}
	return nil
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// checkClient reports a client description that is unfit: bad redirect
// URIs, none (or any, for a client of the device grant alone),
// a name too long or not printable.
func checkClient(c client, deviceOnly bool) error {
	switch {
	case deviceOnly && len(c.RedirectURIs) > 0:
		return errors.New("a client of the device grant alone has no redirect_uris")
	case !deviceOnly && (len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > maxRedirectURIs):
		return fmt.Errorf("a client has 1 to %d redirect_uris", maxRedirectURIs)
	}
	for _, u := range c.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return err
		}
	}
	if len(c.Name) > maxClientName || !utf8.ValidString(c.Name) || strings.ContainsFunc(c.Name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("client_name must be at most %d bytes of printable text", maxClientName)
	}
	return nil
}

// clientCache keeps fetched metadata documents for metadataTTL.
type clientCache struct {
	mu      sync.Mutex
	entries map[string]cachedClient
}

type cachedClient struct {
	c       client
	fetched time.Time
}

func newClientCache() *clientCache { return &clientCache{entries: map[string]cachedClient{}} }

// metadataClient returns the client whose id is the URL of its metadata
// document (draft-ietf-oauth-client-id-metadata-document), fetching it
// unless a copy younger than metadataTTL is kept.
func (s *Server) metadataClient(ctx context.Context, id string) (client, error) {
	now := s.o.Now()
	s.clients.mu.Lock()
	e, ok := s.clients.entries[id]
	s.clients.mu.Unlock()
	if ok && now.Sub(e.fetched) < metadataTTL {
		return e.c, nil
	}
	c, err := s.fetchMetadata(ctx, id)
	if err != nil {
		return client{}, server.InvalidParameter("the client's metadata document at %.100s: %v", id, err)
	}
	s.clients.mu.Lock()
	if len(s.clients.entries) >= maxCachedClients {
		clear(s.clients.entries)
	}
	s.clients.entries[id] = cachedClient{c: c, fetched: now}
	s.clients.mu.Unlock()
	return c, nil
}

// fetchMetadata downloads and checks a client's metadata document: an
// https URL with a path, answering JSON whose client_id is that URL.
func (s *Server) fetchMetadata(ctx context.Context, id string) (client, error) {
	u, err := url.Parse(id)
	if err != nil || u.Scheme != "https" || u.Path == "" || u.Path == "/" || u.Fragment != "" || u.User != nil {
		return client{}, errors.New("a client id URL is https, with a path, without a fragment or credentials")
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return client{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.o.MetadataClient.Do(req)
	if err != nil {
		return client{}, errors.New("it could not be fetched")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return client{}, fmt.Errorf("it answered %d", resp.StatusCode)
	}
	var doc struct {
		ClientID     string   `json:"client_id"`
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadataBytes)).Decode(&doc); err != nil {
		return client{}, errors.New("it is not a JSON document")
	}
	if doc.ClientID != id {
		return client{}, errors.New("its client_id is not its own URL")
	}
	if doc.AuthMethod != "" && doc.AuthMethod != "none" {
		return client{}, errors.New("only public clients (token_endpoint_auth_method none) are supported")
	}
	c := client{ID: id, Name: doc.ClientName, RedirectURIs: doc.RedirectURIs}
	if c.Name == "" {
		c.Name = u.Host
	}
	return c, checkClient(c, false)
}

// NewMetadataClient returns the HTTP client that fetches metadata
// documents: it follows no redirect and, unless allowPrivate, refuses to
// connect to a loopback, private or link-local address (a client id must
// not turn the server into a probe of its own network).
func NewMetadataClient(allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if !allowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			ip := net.ParseIP(host)
			if err != nil || ip == nil || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() ||
				ip.IsLinkLocalMulticast() || ip.IsMulticast() {
				return fmt.Errorf("refusing to fetch client metadata from %s", address)
			}
			return nil
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = d.DialContext
	tr.Proxy = nil
	return &http.Client{Transport: tr, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// registration is a Dynamic Client Registration request (RFC 7591).
type registration struct {
	RedirectURIs  []string `json:"redirect_uris"`
	ClientName    string   `json:"client_name"`
	AuthMethod    string   `json:"token_endpoint_auth_method"`
	GrantTypes    []string `json:"grant_types"`
	ResponseTypes []string `json:"response_types"`
}

// register records a public client (RFC 7591) and answers its id.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if err := s.o.Middleware.Limiter.Allow("oauth-register " + peer(r)); err != nil {
		s.o.Middleware.WriteError(w, r, err)
		return
	}
	var reg registration
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxMetadataBytes)).Decode(&reg); err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is not a JSON client description")
		return
	}
	if reg.AuthMethod != "" && reg.AuthMethod != "none" {
		writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", "only public clients are registered: token_endpoint_auth_method none, with PKCE")
		return
	}
	for _, g := range reg.GrantTypes {
		switch {
		case g == DeviceGrantType && s.o.Devices != nil, g == "authorization_code", g == "refresh_token":
		default:
			writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", "grant_types may hold "+strings.Join(s.grantTypes(), ", ")+" only")
			return
		}
	}
	if len(reg.ResponseTypes) > 0 && !slices.Equal(reg.ResponseTypes, []string{"code"}) {
		writeOAuthError(w, http.StatusBadRequest, "invalid_client_metadata", "response_types may hold code only")
		return
	}
	// A client asking for the device grant and not the authorization
	// code's is sent nowhere: it has no redirect URI.
	deviceOnly := slices.Contains(reg.GrantTypes, DeviceGrantType) && !slices.Contains(reg.GrantTypes, "authorization_code")
	c := client{Name: strings.TrimSpace(reg.ClientName), RedirectURIs: reg.RedirectURIs}
	if err := checkClient(c, deviceOnly); err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_redirect_uri", err.Error())
		return
	}
	id, err := secret(24)
	if err != nil {
		s.o.Middleware.WriteError(w, r, err)
		return
	}
	now := s.o.Now().UTC().Truncate(time.Second)
	rec := server.OAuthClient{ID: "dcr_" + id, Name: c.Name, RedirectURIs: c.RedirectURIs, CreatedAt: now}
	if err := s.o.Store.RegisterClient(r.Context(), rec); err != nil {
		s.o.Middleware.WriteError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": rec.ID, "client_id_issued_at": now.Unix(), "client_name": rec.Name, "redirect_uris": rec.RedirectURIs,
		"token_endpoint_auth_method": "none", "grant_types": registeredGrants(reg.GrantTypes, deviceOnly),
		"response_types": []string{"code"},
	})
}

// peer is the request's remote IP address.
func peer(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// grantTypes are the grant types the server takes.
func (s *Server) grantTypes() []string {
	if s.o.Devices != nil {
		return []string{"authorization_code", "refresh_token", DeviceGrantType}
	}
	return []string{"authorization_code", "refresh_token"}
}

// registeredGrants are the grant types a registered client gets: the
// device grant's and refresh_token for a client of the device grant
// alone, else the authorization code's and refresh_token, with the
// device grant's when it asked for it.
func registeredGrants(asked []string, deviceOnly bool) []string {
	if deviceOnly {
		return []string{DeviceGrantType, "refresh_token"}
	}
	if slices.Contains(asked, DeviceGrantType) {
		return []string{"authorization_code", "refresh_token", DeviceGrantType}
	}
	return []string{"authorization_code", "refresh_token"}
}
