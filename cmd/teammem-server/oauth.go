package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/router"
)

// oauthOptions configures the OAuth authorization server: nil when it is
// off (--oauth=false, no authentication, or a store without OAuth state).
// Its access tokens are signed with the server's key, whose seed is the
// web UI's secret.
func oauthOptions(c serveConfig, store server.Store, seed []byte) *router.OAuth {
	st, ok := store.(server.OAuthStore)
	if !c.oauth || c.insecureNoAuth || !ok || len(seed) != ed25519.SeedSize {
		return nil
	}
	o := &router.OAuth{Store: st, Key: ed25519.NewKeyFromSeed(seed), IssuerName: c.issuer,
		AccessTTL: c.oauthAccessTTL, PrivateClientMetadata: c.oauthPrivateMetadata}
	if rs, ok := store.(server.RevocationStore); ok {
		o.Revocations = rs
	}
	return o
}

// checkPublicURL reports a --public-url that is not an http(s) URL of a
// host with nothing after its path.
func checkPublicURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("--public-url %q: want https://HOST[:PORT][/PATH]", s)
	}
	if strings.TrimSuffix(u.Path, "/") != "" {
		return errors.New("--public-url: the server is served at a host's root; a path is not supported")
	}
	return nil
}
