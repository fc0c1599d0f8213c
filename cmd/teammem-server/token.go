package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/teammem/teammem/internal/cliflags"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/sqlite"
)

const tokenUsage = `Usage: teammem-server token <command> [flags]

Commands:
  create        print a new signed token on stdout (its id on stderr) and record it
  list          print the recorded tokens: id, subject, grants, issued, expires, revoked
  revoke        revoke one token (--id) or a subject's tokens issued before a time (--subject, --before)
  list-revoked  print the recorded revocations

Run 'teammem-server token <command> --help' for a command's flags.
`

// runToken implements `token create|list|revoke|list-revoked`.
func runToken(ctx context.Context, args []string, e env) error {
	if len(args) == 0 {
		return usageError{errors.New("token needs a command: create, list, revoke or list-revoked (see teammem-server token --help)")}
	}
	switch args[0] {
	case "create":
		return runTokenCreate(ctx, args[1:], e)
	case "list":
		return runTokenList(ctx, args[1:], e)
	case "revoke":
		return runTokenRevoke(ctx, args[1:], e)
	case "list-revoked":
		return runTokenListRevoked(ctx, args[1:], e)
	case "-h", "--help", "help":
		fmt.Fprint(e.stdout, tokenUsage)
		return nil
	}
	return usageError{fmt.Errorf("unknown token command %q: want create, list, revoke or list-revoked", args[0])}
}

// runTokenCreate implements `token create`: the token alone on stdout, its
// id (what `token revoke --id` takes) on stderr. The token is recorded in
// the store (id, subject, grants, times; never the token) before it is
// printed, so token list shows every token that was handed out.
func runTokenCreate(ctx context.Context, args []string, e env) error {
	var (
		subject, dataDir, databaseURL, keyFile, issuer string
		grants                                         cliflags.List
		ttl                                            time.Duration
		proposeOnly                                    bool
	)
	fs := newFlagSet("token create", "teammem-server token create --subject NAME --grant GLOB:PERM [--grant ...] [--ttl 720h] [--propose-only] [--data-dir DIR | --database-url URL]", e.stderr)
	fs.StringVar(&subject, "subject", "", "the token's subject `NAME` (who it is for; recorded as author): letters and digits of one script, . - _ @ +; no spaces, no oidc: prefix")
	fs.Var(&grants, "grant", "`GLOB:PERM` with PERM read, write or admin, e.g. acme/*:write (repeatable)")
	fs.DurationVar(&ttl, "ttl", 720*time.Hour, "how long the token is valid (any positive duration)")
	fs.BoolVar(&proposeOnly, "propose-only", false, "every write of the token becomes a proposal for a reviewer, whatever the repository's review policy (CI jobs, bots)")
	storeFlags(fs, &dataDir, &databaseURL)
	fs.StringVar(&keyFile, "signing-key-file", "", "Ed25519 signing key `FILE` (default <data-dir>/signing.key)")
	fs.StringVar(&issuer, "issuer", auth.DefaultIssuer, "issuer `NAME`; must equal the server's --issuer")
	if err := parseFlags(fs, args, e.getenv); err != nil {
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
	// Only a new token's subject is checked: tokens issued before the
	// subject grammar keep working, and revoke takes their subjects.
	if err := server.CheckSubject(subject); err != nil {
		return usageError{fmt.Errorf("--subject: %w", err)}
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
	tok, rec, err := (&auth.Issuer{Key: key, Name: issuer, ProposeOnly: proposeOnly}).IssueRecord(subject, grants, ttl)
	if err != nil {
		return usageError{err}
	}
	store, _, closeStore, err := openTokenStore(ctx, dataDir, databaseURL)
	if err != nil {
		return err
	}
	defer closeStore()
	if err := store.RecordToken(operatorContext(ctx), rec); err != nil {
		return fmt.Errorf("record the token (nothing was handed out): %w", err)
	}
	id := rec.ID
	fmt.Fprintln(e.stdout, tok)
	fmt.Fprintf(e.stderr, "token id %s (revoke it with: teammem-server token revoke --id %s)\n", id, id)
	return nil
}

// futureSkew is how far in the future --before may lie (clocks differ);
// further, it would also revoke tokens created from now until then.
const futureSkew = time.Minute

// runTokenRevoke implements `token revoke`: it records the revocation in
// the database directly, so no server needs to run; every server on the
// database honours it within its --revocation-refresh.
func runTokenRevoke(ctx context.Context, args []string, e env) error {
	var id, subject, before, session, dataDir, databaseURL string
	var unrecorded bool
	fs := newFlagSet("token revoke", "teammem-server token revoke (--id JTI | --subject NAME --before TIME | --session ID) [--data-dir DIR | --database-url URL]", e.stderr)
	fs.StringVar(&session, "session", "", "end the OAuth session with this `ID` (token list shows them): its refresh tokens and access tokens")
	fs.StringVar(&id, "id", "", "revoke the token with this `JTI` (printed by token create)")
	fs.StringVar(&subject, "subject", "", "revoke the tokens of this subject `NAME` issued before --before")
	fs.StringVar(&before, "before", "", "with --subject: an RFC 3339 `TIME` (2026-12-01T09:00:00Z) or now; a token's issue time is in whole seconds")
	fs.BoolVar(&unrecorded, "unrecorded", false, "with --id: revoke an id that token list does not show (a token created before tokens were recorded)")
	storeFlags(fs, &dataDir, &databaseURL)
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	now := time.Now()
	if session != "" {
		if id != "" || subject != "" || before != "" {
			return usageError{errors.New("--session ends one OAuth session and takes no other flag")}
		}
		return revokeSession(ctx, session, dataDir, databaseURL, e)
	}
	r := server.Revocation{TokenID: id, Subject: subject, At: now}
	switch {
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("token revoke takes no arguments, got %q", fs.Arg(0))}
	case id == "" && subject == "":
		return usageError{errors.New("token revoke needs --id JTI, or --subject NAME with --before TIME")}
	case id != "" && (subject != "" || before != ""):
		return usageError{errors.New("--id revokes one token and takes neither --subject nor --before")}
	case id != "" && !unrecorded:
		if err := server.CheckTokenID(id); err != nil {
			return usageError{err}
		}
	case subject != "" && before == "":
		return usageError{errors.New("--subject needs --before TIME: the subject's tokens issued before it are revoked (--before now for all of them)")}
	case before == "now":
		// Tokens carry their issue time in whole seconds: the next whole
		// second catches every token issued so far, and waiting for it
		// below keeps a token created after this command returns valid.
		r.Before = now.Truncate(time.Second).Add(time.Second)
	case subject != "":
		t, err := time.Parse(time.RFC3339Nano, before)
		if err != nil {
			return usageError{fmt.Errorf("--before %q is not an RFC 3339 time such as 2026-12-01T09:00:00Z (or now)", before)}
		}
		if t.After(now.Add(futureSkew)) {
			return usageError{fmt.Errorf("--before %s is in the future: it would also revoke %s's tokens created from now until then; use now", before, subject)}
		}
		r.Before = t
	}
	if err := r.Check(); err != nil {
		return usageError{err}
	}
	store, where, closeStore, err := openTokenStore(ctx, dataDir, databaseURL)
	if err != nil {
		return err
	}
	defer closeStore()
	if id != "" && !unrecorded {
		if err := checkIssued(ctx, store, id, where); err != nil {
			return err
		}
	}
	if err := store.Revoke(operatorContext(ctx), r); err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	if before == "now" {
		select {
		case <-time.After(time.Until(r.Before)):
		case <-ctx.Done():
		}
	}
	if id != "" {
		fmt.Fprintf(e.stdout, "revoked token %s in %s\n", id, where)
	} else {
		fmt.Fprintf(e.stdout, "revoked the tokens of %s issued before %s in %s\n", subject, r.Before.UTC().Format(time.RFC3339Nano), where)
	}
	fmt.Fprintf(e.stdout, "every server on it refuses them within its --revocation-refresh (default %v)\n", auth.DefaultRevocationRefresh)
	return nil
}

// runTokenListRevoked implements `token list-revoked`.
func runTokenListRevoked(ctx context.Context, args []string, e env) error {
	var dataDir, databaseURL string
	fs := newFlagSet("token list-revoked", "teammem-server token list-revoked [--data-dir DIR | --database-url URL]", e.stderr)
	storeFlags(fs, &dataDir, &databaseURL)
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("token list-revoked takes no arguments, got %q", fs.Arg(0))}
	}
	store, _, closeStore, err := openTokenStore(ctx, dataDir, databaseURL)
	if err != nil {
		return err
	}
	defer closeStore()
	list, err := store.Revocations(ctx)
	if err != nil {
		return fmt.Errorf("list revocations: %w", err)
	}
	slices.SortFunc(list, func(a, b server.Revocation) int { return a.At.Compare(b.At) })
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REVOKED AT\tKIND\tTOKEN ID OR SUBJECT\tISSUED BEFORE")
	for _, r := range list {
		at := r.At.UTC().Format(time.RFC3339)
		if r.TokenID != "" {
			fmt.Fprintf(tw, "%s\tid\t%s\t-\n", at, r.TokenID)
		} else {
			fmt.Fprintf(tw, "%s\tsubject\t%s\t%s\n", at, r.Subject, r.Before.UTC().Format(time.RFC3339Nano))
		}
	}
	return tw.Flush()
}

// storeFlags declares the flags naming the database, as migrate does.
func storeFlags(fs flagSet, dataDir, databaseURL *string) {
	fs.StringVar(dataDir, "data-dir", "./.teammem", "the server's data `DIR` (its embedded store)")
	fs.StringVar(databaseURL, "database-url", "", "Postgres `URL` (default: the embedded store in --data-dir)")
}

// tokenStore is what the token commands need of a store: its revocations
// and its records of issued tokens.
type tokenStore interface {
	server.RevocationStore
	server.TokenRegistry
	// The OAuth sessions people started for their clients.
	OAuthSessions(ctx context.Context, subject string, now time.Time) ([]server.OAuthSession, error)
	EndedOAuthSessions(ctx context.Context, subject string, since time.Time) ([]server.OAuthSession, error)
	RevokeOAuthSession(ctx context.Context, subject, id string, now time.Time) error
}

// openTokenStore opens the token tables of Postgres at databaseURL, else
// of the embedded store in dataDir (beside a running server: its lock is
// not taken). where names it for messages.
func openTokenStore(ctx context.Context, dataDir, databaseURL string) (store tokenStore, where string, closeStore func(), err error) {
	if databaseURL != "" {
		db, err := postgres.Open(ctx, databaseURL, postgres.Options{MaxConns: 2})
		if err != nil {
			return nil, "", nil, err
		}
		return db, "the Postgres database", func() { _ = db.Close() }, nil
	}
	path := filepath.Join(dataDir, embeddedDBName)
	return sqlite.TokensAt(path), path, func() {}, nil
}
