package httpkit

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/teammem/teammem/api"
)

// A browser on a developer's machine reaches a server that listens on
// loopback, and any page it opens can make it send requests there, with no
// credential for the server to check when authentication is off. Two ways
// need no help from the server: DNS rebinding (a name the page controls
// made to resolve to 127.0.0.1: the browser sends that name as Host and
// reads the answers as its own origin's) and simple cross-site requests (a
// form's POST, or a fetch without preflight: Content-Type text/plain,
// form-urlencoded or multipart, from any Origin). CheckHost answers the
// first on every route; SameOrigin, SameOriginWrites and NoFormPosts the
// second.

// Hosts is the set of names a request may address the server by (its Host
// header). IP addresses and localhost are always among them: rebinding
// needs a name the attacker's DNS answers for, which they are not. A
// non-strict set answers every name (an authenticated server behind
// proxies that name it as they please). Safe for concurrent use.
type Hosts struct {
	strict bool
	names  map[string]bool
}

// NewHosts returns the names of a server listening on listen (HOST:PORT;
// a host that is a name is one of them) and reached by the public names
// (each a host name, HOST:PORT or a URL: only the host name counts). With
// strict unset every name is answered. An error names a public name that
// is not a host name.
func NewHosts(listen string, public []string, strict bool) (*Hosts, error) {
	h := &Hosts{strict: strict, names: map[string]bool{"localhost": true}}
	if host, _, err := net.SplitHostPort(listen); err == nil && host != "" {
		h.names[strings.ToLower(host)] = true
	}
	for _, p := range public {
		name, err := PublicHost(p)
		if err != nil {
			return nil, err
		}
		h.names[name] = true
	}
	return h, nil
}

// PublicHost returns the host name of a public name as NewHosts takes it:
// lower case, without port or scheme. Names outside ASCII must be given in
// their ASCII (xn--) form, the one browsers send.
func PublicHost(v string) (string, error) {
	name := strings.TrimSpace(v)
	if strings.Contains(name, "://") {
		u, err := url.Parse(name)
		if err != nil {
			return "", fmt.Errorf("public host %q is not a URL: %w", v, err)
		}
		name = u.Hostname()
	} else {
		name = hostName(name)
	}
	if name == "" || !validHostName(name) {
		return "", fmt.Errorf("public host %q is not a host name (such as teammem.example.com, in ASCII)", v)
	}
	return strings.ToLower(name), nil
}

// validHostName reports whether name is an IP address or a DNS name of
// letters, digits, '-', '_' and '.'.
func validHostName(name string) bool {
	if _, err := netip.ParseAddr(name); err == nil {
		return true
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// hostName is the host of a Host header: without its port or the brackets
// of an IPv6 address.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
}

// Allows reports whether a request addressed to host (a Host header) is
// answered. The port is not compared: a browser sends the port it
// connected to, so only port forwards and proxies make it differ, and a
// port is no defence against rebinding. An empty Host (HTTP/1.0) comes
// from no browser.
func (h *Hosts) Allows(host string) bool {
	if !h.strict || host == "" {
		return true
	}
	name := hostName(host)
	if _, err := netip.ParseAddr(name); err == nil {
		return true
	}
	return h.names[strings.ToLower(name)]
}

// CheckHost refuses (421) a request addressed to a name hosts does not
// allow, on every route but the probes and the metrics, which carry no
// memory and which Kubernetes and Prometheus address as they find them.
// It runs inside Observe, so refusals are counted and logged.
func (m *Middleware) CheckHost(hosts *Hosts) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return m.refuse(next, func(r *http.Request) error {
			if !hosts.Allows(r.Host) && !operational(r) {
				return &MisdirectedError{Host: r.Host}
			}
			return nil
		})
	}
}

// operational reports whether r reads a probe or the metrics.
func operational(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	switch r.URL.Path {
	case api.PathHealthz, api.PathReadyz, api.PathMetrics:
		return true
	}
	return false
}

// SameOrigin refuses (403) every request a browser sends from a page of
// another origin, whatever its method: /mcp's rule (the MCP transport
// requires the server to check Origin).
func (m *Middleware) SameOrigin(next http.Handler) http.Handler {
	return m.refuse(next, crossSite)
}

// SameOriginWrites refuses (403) a request that may change state (any
// method but GET, HEAD and OPTIONS) sent by a browser from a page of
// another origin.
func (m *Middleware) SameOriginWrites(next http.Handler) http.Handler {
	return m.refuse(next, func(r *http.Request) error {
		if safeMethod(r.Method) {
			return nil
		}
		return crossSite(r)
	})
}

// NoFormPosts refuses (415) a POST whose Content-Type a page can send to
// any site without asking: text/plain, application/x-www-form-urlencoded
// and multipart/form-data. POST is the one write a form or a fetch without
// preflight can make; a cross-site PUT or DELETE needs a preflight the
// server never grants, so curl's PUT with its default form type still
// works. The web UI, whose forms these are, is not behind it.
func (m *Middleware) NoFormPosts(next http.Handler) http.Handler {
	return m.refuse(next, func(r *http.Request) error {
		if ct := r.Header.Get("Content-Type"); r.Method == http.MethodPost && formType(ct) {
			return &FormBodyError{ContentType: ct}
		}
		return nil
	})
}

// refuse answers the error check finds in a request, or passes the
// request on to next.
func (m *Middleware) refuse(next http.Handler, check func(*http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := check(r); err != nil {
			m.WriteError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// crossSite returns a CrossSiteError for a request a browser sent from
// another origin: one whose Sec-Fetch-Site is neither same-origin nor none
// (typed by the user), or, from a browser that does not send it, whose
// Origin is not the request's own scheme-less host. A request with neither
// header is not a browser's.
func crossSite(r *http.Request) error {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "same-origin", "none":
		return nil
	case "":
	default:
		return &CrossSiteError{Site: site}
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	if u, err := url.Parse(origin); err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	return &CrossSiteError{Origin: origin}
}

// safeMethod reports whether a method only reads.
func safeMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// formType reports whether a Content-Type is one a page sends anywhere
// without a preflight.
func formType(ct string) bool {
	essence, _, _ := strings.Cut(ct, ";")
	switch strings.ToLower(strings.TrimSpace(essence)) {
	case "text/plain", "application/x-www-form-urlencoded", "multipart/form-data":
		return true
	}
	return false
}

// MisdirectedError is a request addressed to a name the server does not
// answer to.
type MisdirectedError struct{ Host string }

func (e *MisdirectedError) Error() string {
	return fmt.Sprintf("host %q is not a name of this server", clip(e.Host))
}

// CrossSiteError is a browser's request from a page of another origin:
// Site is its Sec-Fetch-Site, or Origin its Origin.
type CrossSiteError struct{ Site, Origin string }

func (e *CrossSiteError) Error() string {
	if e.Site != "" {
		return "cross-origin request (Sec-Fetch-Site: " + clip(e.Site) + ")"
	}
	return fmt.Sprintf("cross-origin request (Origin %q)", clip(e.Origin))
}

// FormBodyError is a POST with a Content-Type a page can send to any site.
type FormBodyError struct{ ContentType string }

func (e *FormBodyError) Error() string {
	return fmt.Sprintf("POST body of type %q", clip(e.ContentType))
}

// clip shortens a header value for a message.
func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}
