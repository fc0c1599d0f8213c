package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
)

// printSessions lists the live OAuth sessions (of subject, or everyone's
// when it is ""): the clients people signed in through the browser; then
// those ended in the last server.EndedShownFor, and why.
func printSessions(ctx context.Context, store tokenStore, subject string, w io.Writer) error {
	now := time.Now()
	list, err := store.OAuthSessions(ctx, subject, now)
	if err != nil {
		return fmt.Errorf("list OAuth sessions: %w", err)
	}
	ended, err := store.EndedOAuthSessions(ctx, subject, now.Add(-server.EndedShownFor))
	if err != nil {
		return fmt.Errorf("list ended OAuth sessions: %w", err)
	}
	if len(list) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SESSION\tSUBJECT\tCLIENT\tRESOURCE\tSIGNED IN\tLAST USED\tEXPIRES")
		for _, s := range list {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, s.Subject, s.ClientName, s.Resource,
				s.CreatedAt.Format(time.RFC3339), s.LastUsedAt.Format(time.RFC3339), s.ExpiresAt.Format(time.RFC3339))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(ended) > 0 {
		fmt.Fprintf(w, "\nended in the last %d days:\n", int(server.EndedShownFor.Hours())/24)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SESSION\tSUBJECT\tCLIENT\tSIGNED IN\tENDED\tWHY")
		for _, s := range ended {
			why := s.EndedWhy
			if why == "" {
				why = "revoked"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, s.Subject, s.ClientName,
				s.CreatedAt.Format(time.RFC3339), s.EndedAt.Format(time.RFC3339), why)
		}
		return tw.Flush()
	}
	return nil
}

// revokeSession ends an OAuth session: its refresh tokens at once, its
// access tokens through the revocation list (within --revocation-refresh).
func revokeSession(ctx context.Context, id, dataDir, databaseURL string, e env) error {
	if err := server.CheckOAuthSessionID(id); err != nil {
		return usageError{errors.New("--session takes the 24 hex digits of a SESSION that token list shows")}
	}
	store, where, closeStore, err := openTokenStore(ctx, dataDir, databaseURL)
	if err != nil {
		return err
	}
	defer closeStore()
	ctx = operatorContext(ctx)
	now := time.Now()
	if err := store.RevokeOAuthSession(ctx, "", id, now); err != nil {
		if errors.Is(err, server.ErrNotFound) {
			return fmt.Errorf("%s has no live OAuth session %s (see token list)", where, id)
		}
		return fmt.Errorf("end session: %w", err)
	}
	if err := store.Revoke(ctx, server.Revocation{TokenID: id, At: now}); err != nil {
		return fmt.Errorf("revoke the session's access tokens: %w", err)
	}
	fmt.Fprintf(e.stdout, "ended OAuth session %s in %s\n", id, where)
	fmt.Fprintf(e.stdout, "its refresh token is refused now, its access tokens within --revocation-refresh (default %v)\n", auth.DefaultRevocationRefresh)
	return nil
}
