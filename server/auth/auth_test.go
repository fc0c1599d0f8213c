package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
)

func newKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestIssueVerifyAndExpiry(t *testing.T) {
	key := newKey(t)
	now := time.Date(2026, 11, 30, 12, 0, 0, 500_000_000, time.UTC)
	clock := func() time.Time { return now }
	tok, id, err := (&Issuer{Key: key, Now: clock}).IssueWithID("ana", []string{"acme/*:write"}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVerifier(key.Public(), VerifierOptions{Leeway: time.Hour, Now: clock}) // capped at MaxLeeway
	if err != nil {
		t.Fatal(err)
	}
	p, err := v.Authenticate(context.Background(), tok)
	if err != nil || p.Subject != "ana" || !p.Can("acme/api", server.PermWrite) || p.Can("other/x", server.PermRead) ||
		p.Credential != "token:"+id || p.DisplayName != "" {
		t.Fatalf("Authenticate = %+v, %v", p, err)
	}
	// A 1 s token is still honoured within the leeway and refused after it,
	// also when it is in the cache.
	now = now.Add(time.Second + MaxLeeway - time.Millisecond)
	if _, err := v.Authenticate(context.Background(), tok); err != nil {
		t.Errorf("within leeway: %v", err)
	}
	now = now.Add(2 * time.Second)
	if _, err := v.Authenticate(context.Background(), tok); !errors.Is(err, server.ErrUnauthenticated) {
		t.Errorf("after exp+leeway: %v, want unauthenticated", err)
	}
}

func TestIssueRejects(t *testing.T) {
	iss := &Issuer{Key: newKey(t)}
	for name, f := range map[string]func() error{
		"no subject": func() error { _, err := iss.Issue("", []string{"**:read"}, time.Hour); return err },
		"no grants":  func() error { _, err := iss.Issue("a", nil, time.Hour); return err },
		"bad grant":  func() error { _, err := iss.Issue("a", []string{"acme/api:owner"}, time.Hour); return err },
		"zero ttl":   func() error { _, err := iss.Issue("a", []string{"**:read"}, 0); return err },
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestVerifierCacheIsPerToken(t *testing.T) {
	key := newKey(t)
	v, _ := NewVerifier(key.Public(), VerifierOptions{})
	a, _ := (&Issuer{Key: key}).Issue("a", []string{"x/y:read"}, time.Hour)
	b, _ := (&Issuer{Key: key}).Issue("b", []string{"x/y:write"}, time.Hour)
	for i := 0; i < 3; i++ {
		pa, _ := v.Authenticate(context.Background(), a)
		pb, _ := v.Authenticate(context.Background(), b)
		if pa.Subject != "a" || pb.Subject != "b" {
			t.Fatalf("cache mixed tokens: %s %s", pa.Subject, pb.Subject)
		}
	}
	if _, err := v.Authenticate(context.Background(), a+"x"); err == nil {
		t.Error("a modified token was accepted")
	}
}

func TestLoadOrCreateKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "signing.key")
	var wg sync.WaitGroup
	keys := make([]ed25519.PrivateKey, 8)
	for i := range keys {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			k, _, err := LoadOrCreateKey(path, true)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}(i)
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if !k.Equal(keys[0]) {
			t.Fatal("concurrent first starts produced different keys")
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	if _, _, err := LoadOrCreateKey(filepath.Join(t.TempDir(), "missing.key"), false); err == nil {
		t.Error("a missing key without create was accepted")
	}
	bad := filepath.Join(t.TempDir(), "bad.key")
	os.WriteFile(bad, []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), 0o600)
	if _, err := LoadKey(bad); err == nil {
		t.Error("a garbage key was accepted")
	}
}

func TestBearerToken(t *testing.T) {
	for h, want := range map[string]string{"Bearer abc": "abc", "bearer  abc ": "abc", "Basic abc": "", "Bearer": "", "": ""} {
		got, ok := BearerToken(h)
		if got != want || ok != (want != "") {
			t.Errorf("BearerToken(%q) = %q, %v", h, got, ok)
		}
	}
}
