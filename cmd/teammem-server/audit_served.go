package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/audit"
)

// runAuditServed implements `audit served`: which version of a repository
// a subject's agent held at a time, the index lines its block carried,
// and what MCP and the web UI served it in the hour before.
func runAuditServed(ctx context.Context, args []string, e env) error {
	var dataDir, databaseURL, subject, repo, at string
	fs := newFlagSet("audit served", "teammem-server audit served --subject NAME --repo SLUG --at TIME [--data-dir DIR | --database-url URL]", e.stderr)
	storeFlags(fs, &dataDir, &databaseURL)
	fs.StringVar(&subject, "subject", "", "the reader's token subject `NAME`")
	fs.StringVar(&repo, "repo", "", "the repository `SLUG` (canonical, as token list and the web UI spell it)")
	fs.StringVar(&at, "at", "", "the `TIME` asked about (RFC 3339, e.g. 2026-12-01T10:00Z); default now")
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("audit served takes no arguments, got %q", fs.Arg(0))}
	case subject == "" || repo == "":
		return usageError{errors.New("--subject and --repo are required")}
	}
	when := time.Now().UTC()
	if at != "" {
		t, err := parseTime(at)
		if err != nil {
			return usageError{fmt.Errorf("--at: %w", err)}
		}
		when = t
	}
	log, closeLog, err := openAuditLog(ctx, dataDir, databaseURL)
	if err != nil {
		return err
	}
	defer closeLog()
	h, err := audit.HeldAt(ctx, log, subject, repo, when)
	if err != nil {
		return err
	}
	printHeld(e, subject, repo, when, h)
	return nil
}

func printHeld(e env, subject, repo string, when time.Time, h audit.Held) {
	stamp := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	if h.Pull == nil {
		fmt.Fprintf(e.stdout, "no pull of %s by %s is recorded at or before %s\n", repo, subject, stamp(when))
	} else {
		p := h.Pull
		fmt.Fprintf(e.stdout, "%s held %s version %d at %s\n", subject, repo, p.Version, stamp(when))
		fmt.Fprintf(e.stdout, "  served by %s from %s to %s (%d times in that hour, by %s)\n", p.Surface, stamp(p.First), stamp(p.Last), p.Count, p.Replica)
		switch {
		case h.Index == nil:
			fmt.Fprintf(e.stdout, "  MEMORY.md: none at version %d\n", p.Version)
		case h.Index.Op == server.OpDelete:
			fmt.Fprintf(e.stdout, "  MEMORY.md: deleted at version %d\n", h.Index.Version)
		default:
			fmt.Fprintf(e.stdout, "  MEMORY.md as of version %d (by %s, %s): %d index lines\n", h.Index.Version, h.Index.Author, stamp(h.Index.At), len(h.IndexLines))
			for _, l := range h.IndexLines {
				fmt.Fprintf(e.stdout, "    %s\n", l)
			}
		}
	}
	for _, r := range h.Others {
		keys := ""
		if len(r.Keys) > 0 {
			keys = ": " + strings.Join(r.Keys, ", ")
		}
		fmt.Fprintf(e.stdout, "also served through %s: version %d, %s to %s (%d times)%s\n", r.Surface, r.Version, stamp(r.First), stamp(r.Last), r.Count, keys)
	}
}
