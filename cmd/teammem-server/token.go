package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/teammem/teammem/internal/cliflags"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
)

// runToken implements `token create`.
func runToken(_ context.Context, args []string, e env) error {
	if len(args) == 0 || args[0] != "create" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(e.stdout, "Usage: teammem-server token create --subject NAME --grant GLOB:PERM [--grant ...] [--ttl 720h] [--data-dir DIR]")
			return nil
		}
		return usageError{fmt.Errorf("usage: teammem-server token create --subject NAME --grant GLOB:PERM [--ttl 720h]")}
	}
	var (
		subject, dataDir, keyFile, issuer string
		grants                            cliflags.List
		ttl                               time.Duration
	)
	fs := newFlagSet("token create", "teammem-server token create --subject NAME --grant GLOB:PERM [--grant ...] [--ttl 720h] [--data-dir DIR]", e.stderr)
	fs.StringVar(&subject, "subject", "", "the token's subject `NAME` (who it is for; recorded as author)")
	fs.Var(&grants, "grant", "`GLOB:PERM` with PERM read, write or admin, e.g. acme/*:write (repeatable)")
	fs.DurationVar(&ttl, "ttl", 720*time.Hour, "how long the token is valid (any positive duration)")
	fs.StringVar(&dataDir, "data-dir", "./.teammem", "the server's data `DIR` holding signing.key")
	fs.StringVar(&keyFile, "signing-key-file", "", "Ed25519 signing key `FILE` (default <data-dir>/signing.key)")
	fs.StringVar(&issuer, "issuer", auth.DefaultIssuer, "issuer `NAME`; must equal the server's --issuer")
	if err := parseFlags(fs, args[1:], e.getenv); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("token create takes no arguments, got %q", fs.Arg(0))}
	case subject == "":
		return usageError{fmt.Errorf("--subject is required")}
	case len(grants) == 0:
		return usageError{fmt.Errorf("at least one --grant is required")}
	case ttl <= 0:
		return usageError{fmt.Errorf("--ttl must be positive, got %v", ttl)}
	}
	for _, g := range grants {
		if _, err := server.ParseGrant(g); err != nil {
			return usageError{err}
		}
	}
	// Never create a key here: a token signed by a fresh key in the wrong
	// directory is one the server rejects.
	path := signingKeyPath(dataDir, keyFile)
	key, err := auth.LoadKey(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no signing key at %s: pass the server's --data-dir or --signing-key-file (the server creates the key on its first start)", path)
	}
	if err != nil {
		return fmt.Errorf("signing key: %w", err)
	}
	tok, err := (&auth.Issuer{Key: key, Name: issuer}).Issue(subject, grants, ttl)
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintln(e.stdout, tok)
	return nil
}
