package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/teammem/teammem/server"
)

// runTokenList implements `token list`: every recorded token with whether
// it is revoked (by its id or its subject's cut-off) or expired, then the
// live OAuth sessions (the clients people signed in through the browser).
func runTokenList(ctx context.Context, args []string, e env) error {
	var dataDir, databaseURL, subject string
	fs := newFlagSet("token list", "teammem-server token list [--subject NAME] [--data-dir DIR | --database-url URL]", e.stderr)
	fs.StringVar(&subject, "subject", "", "only the tokens and OAuth sessions of this subject `NAME`")
	storeFlags(fs, &dataDir, &databaseURL)
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("token list takes no arguments, got %q", fs.Arg(0))}
	}
	store, _, closeStore, err := openTokenStore(ctx, dataDir, databaseURL)
	if err != nil {
		return err
	}
	defer closeStore()
	tokens, err := store.IssuedTokens(ctx)
	if err != nil {
		return fmt.Errorf("list tokens: %w", err)
	}
	revs, err := store.Revocations(ctx)
	if err != nil {
		return fmt.Errorf("list revocations: %w", err)
	}
	now := time.Now()
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSUBJECT\tGRANTS\tISSUED\tEXPIRES\tSTATE")
	for _, t := range tokens {
		if subject != "" && t.Subject != subject {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Subject, strings.Join(t.Grants, ","),
			t.IssuedAt.Format(time.RFC3339), t.ExpiresAt.Format(time.RFC3339), tokenState(t, revs, now))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := printSessions(ctx, store, subject, e.stdout); err != nil {
		return err
	}
	if len(tokens) == 0 {
		fmt.Fprintln(e.stderr, "no token is recorded (tokens created before this version were not recorded; token list-revoked shows the revocations)")
	}
	return nil
}

// tokenState says whether t is revoked (its id, or its subject's tokens
// issued before a time), expired, or valid at now.
func tokenState(t server.IssuedToken, revs []server.Revocation, now time.Time) string {
	for _, r := range revs {
		if r.TokenID == t.ID || (r.Subject == t.Subject && t.IssuedAt.Before(r.Before)) {
			return "revoked " + r.At.UTC().Format(time.RFC3339)
		}
	}
	if !now.Before(t.ExpiresAt) {
		return "expired"
	}
	return "valid"
}

// errNoSuchToken is checkIssued's refusal.
var errNoSuchToken = errors.New("no such token was issued")

// checkIssued refuses to revoke an id no recorded token carries: a
// mistyped id would otherwise print "revoked" while the real token keeps
// working.
func checkIssued(ctx context.Context, store server.TokenRegistry, id, where string) error {
	tokens, err := store.IssuedTokens(ctx)
	if err != nil {
		return fmt.Errorf("read the issued tokens: %w", err)
	}
	if slices.ContainsFunc(tokens, func(t server.IssuedToken) bool { return t.ID == id }) {
		return nil
	}
	return fmt.Errorf("%w: %s has no token with id %s (see token list; a token created before tokens were recorded is revoked with --unrecorded)", errNoSuchToken, where, id)
}
