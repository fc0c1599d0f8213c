package auth

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/teammem/teammem/server"
)

// fakeRevocations is a revocation store in memory that counts its loads.
type fakeRevocations struct {
	mu    sync.Mutex
	list  []server.Revocation
	err   error
	gate  chan struct{} // when set, a load waits for it
	loads atomic.Int64
}

func (f *fakeRevocations) Revocations(ctx context.Context) ([]server.Revocation, error) {
	f.loads.Add(1)
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]server.Revocation(nil), f.list...), f.err
}

func (f *fakeRevocations) add(r server.Revocation) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.list = append(f.list, r)
}

// revocationHarness is a verifier on a fake clock and store.
type revocationHarness struct {
	t     *testing.T
	now   time.Time
	iss   *Issuer
	store *fakeRevocations
	v     *Verifier
}

func newRevocationHarness(t *testing.T, refresh time.Duration) *revocationHarness {
	h := &revocationHarness{t: t, now: time.Date(2026, 12, 1, 9, 0, 0, 250_000_000, time.UTC), store: &fakeRevocations{}}
	clock := func() time.Time { return h.now }
	key := newKey(t)
	h.iss = &Issuer{Key: key, Now: clock}
	v, err := NewVerifier(key.Public(), VerifierOptions{Now: clock, Revocations: h.store, RevocationRefresh: refresh})
	if err != nil {
		t.Fatal(err)
	}
	h.v = v
	return h
}

func (h *revocationHarness) issue(subject string) (token, id string) {
	h.t.Helper()
	token, id, err := h.iss.IssueWithID(subject, []string{"acme/*:write"}, 24*time.Hour)
	if err != nil {
		h.t.Fatal(err)
	}
	return token, id
}

func (h *revocationHarness) accepted(token string) bool {
	h.t.Helper()
	_, err := h.v.Authenticate(context.Background(), token)
	switch {
	case err == nil:
		return true
	case errors.Is(err, server.ErrUnauthenticated) && strings.Contains(err.Error(), "revoked"):
		return false
	}
	h.t.Fatalf("Authenticate: %v; want success or a revocation", err)
	return false
}

func TestRevokedByID(t *testing.T) {
	h := newRevocationHarness(t, 5*time.Second)
	tok, id := h.issue("ana")
	other, otherID := h.issue("ana")
	if len(id) != 24 || id == otherID {
		t.Fatalf("ids %q and %q; want 24 hex digits each, distinct", id, otherID)
	}
	if !h.accepted(tok) { // now cached, both the principal and the list
		t.Fatal("fresh token refused")
	}
	h.store.add(server.Revocation{TokenID: id, At: h.now})
	h.now = h.now.Add(4 * time.Second)
	if !h.accepted(tok) {
		t.Error("refused before the list's refresh: the list should still be the cached one")
	}
	h.now = h.now.Add(time.Second) // the list is now 5 s old: reloaded
	if h.accepted(tok) {
		t.Error("revoked token accepted after the refresh bound")
	}
	if !h.accepted(other) {
		t.Error("another token of the same subject refused")
	}
	if n := h.store.loads.Load(); n != 2 {
		t.Errorf("%d loads of the revocation list; want 2 (one per refresh)", n)
	}
}

func TestRevokedBySubjectBefore(t *testing.T) {
	h := newRevocationHarness(t, time.Second)
	old, _ := h.issue("ana") // iat 09:00:00 (whole seconds)
	bob, _ := h.issue("bob")
	h.now = h.now.Add(time.Hour)
	cutoff := h.now
	h.store.add(server.Revocation{Subject: "ana", Before: cutoff, At: cutoff})
	h.now = h.now.Add(time.Second)
	newer, _ := h.issue("ana") // issued after the cutoff
	if h.accepted(old) {
		t.Error("ana's token issued before the cutoff accepted")
	}
	if !h.accepted(newer) {
		t.Error("ana's token issued after the cutoff refused")
	}
	if !h.accepted(bob) {
		t.Error("bob's token refused")
	}
	// A later revocation of the same subject takes the later time.
	h.store.add(server.Revocation{Subject: "ana", Before: h.now.Add(time.Minute), At: h.now})
	h.now = h.now.Add(2 * time.Second)
	if h.accepted(newer) {
		t.Error("the later cutoff did not revoke the newer token")
	}
}

func TestRevocationLoadFailure(t *testing.T) {
	h := newRevocationHarness(t, time.Second)
	tok, _ := h.issue("ana")
	h.store.err = errors.New("disk on fire")
	_, err := h.v.Authenticate(context.Background(), tok)
	if !errors.Is(err, server.ErrUnavailable) || errors.Is(err, server.ErrUnauthenticated) {
		t.Fatalf("Authenticate with the list unreadable = %v; want unavailable (503), not a 401", err)
	}
	h.store.err = nil // a failure is not cached
	if !h.accepted(tok) {
		t.Error("refused once the list reads again")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.now = h.now.Add(time.Minute)
	if _, err := h.v.Authenticate(ctx, tok); !errors.Is(err, context.Canceled) {
		t.Errorf("Authenticate with a canceled request = %v; want canceled", err)
	}
}

// TestRevocationLoadIsBounded: a store that stops answering fails the
// verification as unavailable (503) after the load timeout, even for a
// caller without a deadline (an events stream's re-check).
func TestRevocationLoadIsBounded(t *testing.T) {
	h := newRevocationHarness(t, time.Second)
	tok, _ := h.issue("ana")
	h.store.gate = make(chan struct{}) // never opened: the store hangs
	h.v.revoked.timeout = 50 * time.Millisecond
	done := make(chan error, 1)
	go func() { _, err := h.v.Authenticate(context.Background(), tok); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, server.ErrUnavailable) {
			t.Errorf("Authenticate against a hanging store = %v; want unavailable", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a verification waited on a hanging store past its load timeout")
	}
}

// TestRevocationOneLoadForMany: verifications that find the list stale
// together wait for one load instead of each querying the store.
func TestRevocationOneLoadForMany(t *testing.T) {
	h := newRevocationHarness(t, time.Minute)
	h.store.gate = make(chan struct{})
	tok, _ := h.issue("ana")
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := h.v.Authenticate(context.Background(), tok)
			errs <- err
		}()
	}
	for h.store.loads.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(h.store.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Authenticate: %v", err)
		}
	}
	if n := h.store.loads.Load(); n != 1 {
		t.Errorf("%d loads for 20 concurrent verifications; want 1", n)
	}
}

// TestRevokedOIDCToken: revocations apply to the tokens of trusted OIDC
// issuers too, by their jti and by their subject as the server names it.
func TestRevokedOIDCToken(t *testing.T) {
	store := &fakeRevocations{}
	o, sign := newTestOIDC(t)
	v, err := NewVerifier(newKey(t).Public(), VerifierOptions{OIDC: []*OIDC{o}, Revocations: store, RevocationRefresh: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	claims := func(jti string) map[string]any {
		return map[string]any{"iss": o.Issuer, "aud": o.Audience, "sub": "repo:acme/api", "jti": jti,
			"iat": time.Now().Add(-time.Minute).Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	}
	a, b := sign(claims("job-1")), sign(claims("job-2"))
	for _, tok := range []string{a, b} {
		if _, err := v.Authenticate(context.Background(), tok); err != nil {
			t.Fatalf("OIDC token refused before any revocation: %v", err)
		}
	}
	store.add(server.Revocation{TokenID: "job-1", At: time.Now()})
	if _, err := v.Authenticate(context.Background(), a); !errors.Is(err, server.ErrUnauthenticated) {
		t.Errorf("OIDC token revoked by jti: %v; want refused", err)
	}
	if _, err := v.Authenticate(context.Background(), b); err != nil {
		t.Errorf("the other OIDC token: %v; want accepted", err)
	}
	store.add(server.Revocation{Subject: "oidc:repo:acme/api", Before: time.Now(), At: time.Now()})
	if _, err := v.Authenticate(context.Background(), b); !errors.Is(err, server.ErrUnauthenticated) {
		t.Errorf("OIDC token revoked by subject: %v; want refused", err)
	}
}

// newTestOIDC is a trusted OIDC issuer with an Ed25519 key served as a
// JWKS, and a function signing claims with it.
func newTestOIDC(t *testing.T) (*OIDC, func(map[string]any) string) {
	key := newKey(t)
	jwks := map[string]any{"keys": []map[string]string{{"kty": "OKP", "crv": "Ed25519", "kid": "k1", "use": "sig",
		"x": base64.RawURLEncoding.EncodeToString(key.Public().(ed25519.PublicKey))}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(jwks)
	}))
	t.Cleanup(srv.Close)
	o := &OIDC{Issuer: "https://ci.example", Audience: "teammem-ci", JWKSURL: srv.URL}
	return o, func(claims map[string]any) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims(claims))
		tok.Header["kid"] = "k1"
		s, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// BenchmarkAuthenticateWithRevocations is the cost of verifying a cached
// token against 10,000 revocations while the list is fresh: no store
// query, a hash and two map lookups beyond the check without them.
func BenchmarkAuthenticateWithRevocations(b *testing.B) {
	key := newKey(b)
	store := &fakeRevocations{}
	for i := range 10_000 {
		store.list = append(store.list, server.Revocation{TokenID: fmt.Sprintf("%024x", i)},
			server.Revocation{Subject: fmt.Sprintf("user-%d", i), Before: time.Now()})
	}
	tok, err := (&Issuer{Key: key}).Issue("ana", []string{"acme/*:write"}, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts VerifierOptions
	}{{"none", VerifierOptions{}}, {"10k", VerifierOptions{Revocations: store, RevocationRefresh: time.Hour}}} {
		b.Run(tc.name, func(b *testing.B) {
			v, _ := NewVerifier(key.Public(), tc.opts)
			ctx := context.Background()
			for b.Loop() {
				if _, err := v.Authenticate(ctx, tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
