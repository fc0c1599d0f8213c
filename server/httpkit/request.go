package httpkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
)

type ctxKey struct{}

// Info is what the middleware learns about a request, kept in one context
// value set by RequestIDs: its id, and what inner layers fill in for the
// handlers and the access log line (the repository, the caller).
type Info struct {
	ID      string
	Repo    string
	Subject string
	// Principal is the caller once authentication has verified it.
	Principal server.Principal
}

// InfoOf returns the request's info; a context without one (a request that
// did not pass RequestIDs) gets an empty one nobody else sees.
func InfoOf(ctx context.Context) *Info {
	if info, ok := ctx.Value(ctxKey{}).(*Info); ok {
		return info
	}
	return &Info{}
}

// RequestID returns the request's id.
func RequestID(ctx context.Context) string { return InfoOf(ctx).ID }

// Anonymous is the caller of --insecure-no-auth mode.
var Anonymous = server.Principal{Subject: server.AnonymousSubject, Grants: []server.Grant{{Glob: []string{"**"}, Perm: server.PermAdmin}},
	Credential: server.CredentialNone}

// RequestIDs takes X-Request-ID from the request or makes one, and echoes
// it; every answer also names the server (api.HeaderServerID).
func RequestIDs(serverID string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get(api.HeaderRequestID)
			if !validRequestID(id) {
				id = NewRequestID()
			}
			w.Header().Set(api.HeaderRequestID, id)
			w.Header().Set(api.HeaderServerID, serverID)
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, &Info{ID: id})))
		})
	}
}

// validRequestID accepts a client-sent id only when short and printable.
func validRequestID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// NewRequestID makes a random request id (for answers written before the
// middleware ran).
func NewRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// RoutePattern returns chi's route pattern, or "unmatched".
func RoutePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			return p
		}
	}
	return "unmatched"
}

// SetLogRepo records the repository a request is about for the access log
// (its canonical slug, or a redacted raw value).
func SetLogRepo(r *http.Request, repo string) {
	InfoOf(r.Context()).Repo = repo
}

// OptionalInt parses a non-negative integer query or form parameter (0 when
// absent).
func OptionalInt(q map[string][]string, name string) (int64, error) {
	v := ""
	if vs := q[name]; len(vs) > 0 {
		v = vs[0]
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		if len(v) > 100 {
			v = v[:100] + "…"
		}
		return 0, server.InvalidParameter("%s must be a non-negative integer, got %q", name, v)
	}
	return n, nil
}
