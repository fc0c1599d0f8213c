package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
)

const (
	signingKeyName = "signing.key"
	adminTokenName = "admin.token"
	adminTokenTTL  = 365 * 24 * time.Hour
)

// signingKeyPath is --signing-key-file, or the data directory's key.
func signingKeyPath(dataDir, keyFile string) string {
	if keyFile != "" {
		return keyFile
	}
	return filepath.Join(dataDir, signingKeyName)
}

// signingKey loads the key named by --signing-key-file (which must exist),
// or the data directory's key, created on first start with mode 0600 (an
// existing key is only read, so a full disk does not stop a restart).
func signingKey(dataDir, keyFile string) (ed25519.PrivateKey, bool, error) {
	if keyFile != "" {
		k, err := auth.LoadKey(keyFile)
		return k, false, err
	}
	return auth.LoadOrCreateKey(signingKeyPath(dataDir, ""), true)
}

// setupAuth prepares token verification and, on first start, admin.token.
// It also returns the secret the web UI seals its sessions with: the
// signing key's seed, so that every replica sharing the key accepts the
// others' sessions (the UI derives its own keys from it).
// Every verification is checked against the store's token revocations
// (when it records them), read at most once per --revocation-refresh.
func setupAuth(ctx context.Context, c serveConfig, store server.Store, log *slog.Logger) (*auth.Verifier, []byte, error) {
	key, created, err := signingKey(c.dataDir, c.signingKeyFile)
	if err != nil {
		return nil, nil, fmt.Errorf("signing key: %w", err)
	}
	if created {
		log.Info("created signing key", "path", dataPath(c, signingKeyName))
	}
	if err := ensureAdminToken(ctx, c, key, store, log); err != nil {
		return nil, nil, err
	}
	opts := auth.VerifierOptions{Issuer: c.issuer, RevocationRefresh: c.revocationRefresh}
	if r, ok := store.(server.RevocationReader); ok {
		opts.Revocations = r
	}
	if c.oidcJWKSURL != "" {
		o := &auth.OIDC{Issuer: c.oidcIssuer, Audience: c.oidcAudience, JWKSURL: c.oidcJWKSURL}
		for _, g := range c.oidcGrants {
			cg, err := auth.ParseClaimGrant(g)
			if err != nil {
				return nil, nil, usageError{err}
			}
			o.Grants = append(o.Grants, cg)
		}
		opts.OIDC = append(opts.OIDC, o)
	}
	v, err := auth.NewVerifier(key.Public(), opts)
	return v, key.Seed(), err
}

// ensureAdminToken writes admin.token (grant **:admin, mode 0600) when it
// does not exist; an existing one is left untouched (not even a temporary
// file is written, so a server on a full disk still starts). Its path is
// logged; the token never is. A new one is recorded in the store (when it
// records tokens) so that token list shows it.
func ensureAdminToken(ctx context.Context, c serveConfig, key ed25519.PrivateKey, store server.Store, log *slog.Logger) error {
	path := dataPath(c, adminTokenName)
	if _, err := os.Lstat(path); err == nil {
		log.Info("admin token exists", "path", path)
		return nil
	}
	iss := &auth.Issuer{Key: key, Name: c.issuer}
	tok, rec, err := iss.IssueRecord("admin", []string{"**:admin"}, adminTokenTTL)
	if err != nil {
		return fmt.Errorf("admin token: %w", err)
	}
	if reg, ok := store.(server.TokenRegistry); ok {
		if err := reg.RecordToken(server.WithAuditActor(ctx, server.AuditActor{Subject: "server", Surface: "first-start"}), rec); err != nil {
			return fmt.Errorf("record the admin token: %w", err)
		}
	}
	if err := auth.WriteFileExclusive(path, []byte(tok+"\n")); err != nil {
		if errors.Is(err, fs.ErrExist) {
			log.Info("admin token exists", "path", path)
			return nil
		}
		return fmt.Errorf("write admin token: %w", err)
	}
	log.Info("wrote admin token (grant **:admin)", "path", path)
	return nil
}
