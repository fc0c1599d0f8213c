package httpkit_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/httpkit"
	"github.com/teammem/teammem/testkit/proctest"
)

// meter counts what the middleware reports.
type meter struct {
	mu                                   sync.Mutex
	requests                             []string // method status
	authFailures, conflicts, rateLimited int
}

func (m *meter) ObserveRequest(method, _ string, status int, _ time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, method+" "+http.StatusText(status))
}

// counts returns the refusals counted and the requests observed.
func (m *meter) counts() (authFailures, rateLimited, requests int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.authFailures, m.rateLimited, len(m.requests)
}

func (m *meter) conflictsCounted() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.conflicts
}

func (m *meter) AuthFailure() { m.mu.Lock(); m.authFailures++; m.mu.Unlock() }
func (m *meter) Conflict()    { m.mu.Lock(); m.conflicts++; m.mu.Unlock() }
func (m *meter) RateLimited() { m.mu.Lock(); m.rateLimited++; m.mu.Unlock() }

// kit is a Middleware over a real token verifier, with its log and meter.
type kit struct {
	mw   *httpkit.Middleware
	logs *proctest.Buffer
	m    *meter
	iss  *auth.Issuer
}

func newKit(t *testing.T, perSecond float64) *kit {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	v, err := auth.NewVerifier(key.Public(), auth.VerifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k := &kit{logs: &proctest.Buffer{}, m: &meter{}, iss: &auth.Issuer{Key: key}}
	k.mw = &httpkit.Middleware{Log: slog.New(slog.NewTextHandler(k.logs, nil)), Meter: k.m, Auth: v,
		Limiter: httpkit.NewLimiter(perSecond), AccessLog: true}
	return k
}

// serve serves h inside RequestIDs, Observe and Recover, as the router does.
func (k *kit) serve(t *testing.T, h http.Handler) string {
	t.Helper()
	hs := httptest.NewServer(httpkit.RequestIDs("server-1")(k.mw.Observe(k.mw.Recover(h))))
	t.Cleanup(hs.Close)
	return hs.URL
}

type answer struct {
	status int
	header http.Header
	env    api.ErrorEnvelope
	body   string
}

func get(t *testing.T, url, token string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
	_ = json.Unmarshal(b, &a.env)
	return a
}

// TestServerFailuresDoNotLeak: a handler's internal error and a panic are
// answered 500 with the generic envelope and the request id; what went
// wrong is in the log under that id, never in the answer.
func TestServerFailuresDoNotLeak(t *testing.T) {
	k := newKit(t, 0)
	url := k.serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/panic":
			panic(internal)
		case "/conflict":
			k.mw.WriteError(w, r, &server.PreconditionError{Checksum: "sha256:ab"})
			return
		}
		k.mw.Wrap(func(http.ResponseWriter, *http.Request) error { return errors.New(internal) })(w, r)
	}))
	if a := get(t, url+"/conflict", ""); a.status != http.StatusPreconditionFailed || k.m.conflictsCounted() != 1 {
		t.Errorf("conflict: %d, counted %d", a.status, k.m.conflictsCounted())
	}
	for _, path := range []string{"/error", "/panic"} {
		a := get(t, url+path, "")
		id := a.header.Get(api.HeaderRequestID)
		if a.status != http.StatusInternalServerError || a.env.Error.Code() != api.CodeInternal || a.env.Error.Details["request_id"] != id {
			t.Errorf("%s: %d %s; want 500 with code internal and request id %q", path, a.status, a.body, id)
		}
		noLeak(t, a.body, nil)
		if logs := k.logs.String(); !strings.Contains(logs, "request_id="+id) || !strings.Contains(logs, "hunter2") {
			t.Errorf("%s: the failure is not logged under its request id:\n%s", path, logs)
		}
	}
	if !strings.Contains(k.logs.String(), `msg=panic`) || !strings.Contains(k.logs.String(), "stack=") {
		t.Errorf("the panic is logged without its stack:\n%s", k.logs.String())
	}
}

// TestAuthenticate: no token or a bad one is a counted 401 with the
// challenge; a valid token reaches the handler as its Principal; past the
// subject's rate the answer is a counted 429 with Retry-After.
func TestAuthenticate(t *testing.T) {
	k := newKit(t, 1) // burst 2
	url := k.serve(t, k.mw.Authenticate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := httpkit.Principal(r.Context())
		if !p.Can("acme/api", server.PermRead) {
			t.Errorf("principal %+v cannot read acme/api", p)
		}
		_, _ = io.WriteString(w, p.Subject)
	})))
	for _, token := range []string{"", "not-a-token"} {
		if a := get(t, url, token); a.status != http.StatusUnauthorized || a.header.Get("WWW-Authenticate") == "" ||
			a.env.Error.Code() != api.CodeUnauthenticated {
			t.Errorf("token %q: %d %q %s", token, a.status, a.header.Get("WWW-Authenticate"), a.body)
		}
	}
	tok, err := k.iss.Issue("ana", []string{"acme/*:read"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if a := get(t, url, tok); a.status != http.StatusOK || a.body != "ana" {
			t.Fatalf("valid token: %d %s", a.status, a.body)
		}
	}
	if a := get(t, url, tok); a.status != http.StatusTooManyRequests || a.header.Get("Retry-After") == "" {
		t.Errorf("over the rate: %d Retry-After %q", a.status, a.header.Get("Retry-After"))
	}
	if af, rl, n := k.m.counts(); af != 2 || rl != 1 || n != 5 {
		t.Errorf("counted %d auth failures, %d rate limited, %d requests; want 2, 1 and 5", af, rl, n)
	}
	if logs := k.logs.String(); strings.Contains(logs, tok) || !strings.Contains(logs, "subject=ana") {
		t.Errorf("the log holds the token or lacks the subject:\n%s", logs)
	}
}

// TestVerifyCaller: VerifyCaller verifies the token and records the
// caller as Authenticate does, but leaves the rate limit to the surface:
// its requests take no token, and a token is still left for Authenticate.
func TestVerifyCaller(t *testing.T) {
	k := newKit(t, 1) // burst 2
	url := k.serve(t, k.mw.VerifyCaller(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, httpkit.InfoOf(r.Context()).Subject+" "+httpkit.Principal(r.Context()).Subject)
	})))
	if a := get(t, url, "not-a-token"); a.status != http.StatusUnauthorized {
		t.Errorf("a bad token: %d %s", a.status, a.body)
	}
	tok, err := k.iss.Issue("ana", []string{"acme/*:read"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if a := get(t, url, tok); a.status != http.StatusOK || a.body != "ana ana" {
			t.Fatalf("valid token: %d %s", a.status, a.body)
		}
	}
	if err := k.mw.Limiter.Allow("ana"); err != nil {
		t.Errorf("the caller's budget after 5 verified requests: %v, want untouched", err)
	}
}
