package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/teammem/teammem/internal/cliflags"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/signin"
)

// secretEnv holds the OIDC client secret when no file names it.
const secretEnv = "TEAMMEM_OIDC_CLIENT_SECRET"

// signInConfig is how people sign in to the web UI with the organisation's
// OpenID Connect provider (--oidc-issuer with --oidc-client-id).
type signInConfig struct {
	clientID, secretFile string
	secret               string // read from secretFile or secretEnv
	name, subjectClaim   string
	mappings, scopes     cliflags.List
	recheck, grace       time.Duration
}

func (s *signInConfig) flags(fs flagSet) {
	fs.StringVar(&s.clientID, "oidc-client-id", "", "people sign in to the web UI with --oidc-issuer as this client `ID` (authorization code flow with PKCE; the redirect URI is <public URL>/ui/login/oidc/callback)")
	fs.StringVar(&s.secretFile, "oidc-client-secret-file", "", "`FILE` holding the client secret (default: $"+secretEnv+"; none for a public client)")
	fs.StringVar(&s.name, "oidc-name", "", "the provider's `NAME` on the sign-in button (default: the issuer's host)")
	fs.StringVar(&s.subjectClaim, "oidc-subject-claim", "email", "the ID token or userinfo `CLAIM` that names a person (sub when it is absent)")
	fs.Var(&s.mappings, "oidc-map", "`CLAIM=VALUE=GLOB:PERM`: people whose CLAIM holds VALUE get the grant, e.g. groups=platform=acme/*:write (repeatable; asked again at every --oidc-recheck)")
	fs.Var(&s.scopes, "oidc-scope", "a `SCOPE` to ask for beside openid (repeatable; default email, profile, offline_access)")
	fs.DurationVar(&s.recheck, "oidc-recheck", server.DefaultSignInRecheck, "how old the provider's last answer about a person may be before a web UI page or an OAuth refresh asks it again (a person removed from a group loses its grants within this long, plus an access token's life)")
	fs.DurationVar(&s.grace, "oidc-outage-grace", server.DefaultSignInGrace, "while the provider cannot be reached, how long after its last answer a person's grants hold; after that, web pages and OAuth refreshes are refused until it answers (nobody is signed out)")
}

// readSecret reads the client secret from its file or the environment.
func (s *signInConfig) readSecret(getenv func(string) string) error {
	if s.secretFile == "" {
		s.secret = strings.TrimSpace(getenv(secretEnv))
		return nil
	}
	b, err := os.ReadFile(s.secretFile)
	if err != nil {
		return fmt.Errorf("--oidc-client-secret-file: %w", err)
	}
	s.secret = strings.TrimSpace(string(b))
	return nil
}

// provider discovers the identity provider; nil without --oidc-client-id.
func (s *signInConfig) provider(ctx context.Context, issuer string, log *slog.Logger) (server.IdentityProvider, error) {
	if s.clientID == "" {
		return nil, nil
	}
	if issuer == "" {
		return nil, usageError{errors.New("--oidc-client-id needs --oidc-issuer")}
	}
	cfg := signin.Config{Issuer: issuer, ClientID: s.clientID, ClientSecret: s.secret, Name: s.name,
		SubjectClaim: s.subjectClaim, Scopes: s.scopes}
	for _, m := range s.mappings {
		cg, err := signin.ParseClaimGrant(m)
		if err != nil {
			return nil, usageError{fmt.Errorf("--oidc-map: %w", err)}
		}
		cfg.Map = append(cfg.Map, cg)
	}
	p, err := signin.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	log.Info("people sign in with "+p.Name(), "issuer", issuer, "client_id", s.clientID, "mappings", len(cfg.Map))
	return p, nil
}

// signInStore is the store's sign-ins (nil when it keeps none).
func signInStore(store server.Store) server.SignInStore {
	s, _ := store.(server.SignInStore)
	return s
}
