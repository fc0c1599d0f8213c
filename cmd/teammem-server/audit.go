package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/audit"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/sqlite"
)

const auditUsage = `Usage: teammem-server audit <command> [flags]

Commands:
  verify   check every chain of the audit log against its hashes and signed checkpoints
  export   print the audit log's entries as JSON lines (--since TIME, --repo SLUG, --subject NAME)
  served   which version of a repository a subject was served at a time (--subject, --repo, --at)

Run 'teammem-server audit <command> --help' for a command's flags.
`

// runAudit implements `audit verify|export|served`.
func runAudit(ctx context.Context, args []string, e env) error {
	if len(args) == 0 {
		return usageError{errors.New("audit needs a command: verify, export or served (see teammem-server audit --help)")}
	}
	switch args[0] {
	case "verify":
		return runAuditVerify(ctx, args[1:], e)
	case "export":
		return runAuditExport(ctx, args[1:], e)
	case "served":
		return runAuditServed(ctx, args[1:], e)
	case "-h", "--help", "help":
		fmt.Fprint(e.stdout, auditUsage)
		return nil
	}
	return usageError{fmt.Errorf("unknown audit command %q: want verify, export or served", args[0])}
}

// auditStore is what the audit commands read: the audit log and the
// served records.
type auditStore interface {
	server.AuditLog
	server.ServedLog
}

// openAuditLog opens the audit log and served records of Postgres at
// databaseURL, else of the embedded store in dataDir, beside a running
// server.
func openAuditLog(ctx context.Context, dataDir, databaseURL string) (auditStore, func(), error) {
	if databaseURL != "" {
		db, err := postgres.Open(ctx, databaseURL, postgres.Options{MaxConns: 2})
		if err != nil {
			return nil, nil, err
		}
		return db, func() { _ = db.Close() }, nil
	}
	return sqlite.AuditAt(filepath.Join(dataDir, embeddedDBName)), func() {}, nil
}

func runAuditVerify(ctx context.Context, args []string, e env) error {
	var dataDir, databaseURL, keyFile string
	fs := newFlagSet("audit verify", "teammem-server audit verify [--data-dir DIR | --database-url URL] [--signing-key-file FILE]", e.stderr)
	storeFlags(fs, &dataDir, &databaseURL)
	fs.StringVar(&keyFile, "signing-key-file", "", "the server's Ed25519 signing key `FILE`, whose public half checks the checkpoints (default <data-dir>/signing.key)")
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("audit verify takes no arguments, got %q", fs.Arg(0))}
	}
	var pub ed25519.PublicKey
	path := signingKeyPath(dataDir, keyFile)
	key, err := auth.LoadKey(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		fmt.Fprintf(e.stderr, "no signing key at %s: the checkpoints' signatures are not checked\n", path)
	case err != nil:
		return fmt.Errorf("signing key: %w", err)
	default:
		pub = key.Public().(ed25519.PublicKey)
	}
	log, closeLog, err := openAuditLog(ctx, dataDir, databaseURL)
	if err != nil {
		return err
	}
	defer closeLog()
	r, err := audit.Verify(ctx, log, pub)
	if err != nil {
		return err
	}
	for _, p := range r.Problems {
		fmt.Fprintln(e.stdout, p)
	}
	fmt.Fprintf(e.stdout, "%d chains, %d entries, %d checkpoints; %d entries after their chain's last checkpoint\n",
		r.Chains, r.Entries, r.Checkpoints, r.Unsigned)
	if len(r.Problems) > 0 {
		return fmt.Errorf("the audit log does not verify: %d problems", len(r.Problems))
	}
	fmt.Fprintln(e.stdout, "the audit log verifies")
	return nil
}

func runAuditExport(ctx context.Context, args []string, e env) error {
	var dataDir, databaseURL, since, repo, subject string
	fs := newFlagSet("audit export", "teammem-server audit export [--since TIME] [--repo SLUG] [--subject NAME] [--data-dir DIR | --database-url URL]", e.stderr)
	storeFlags(fs, &dataDir, &databaseURL)
	fs.StringVar(&since, "since", "", "only entries at or after `TIME` (RFC 3339, e.g. 2026-12-01T10:00:00Z, or a date)")
	fs.StringVar(&repo, "repo", "", "only the chain of the repository `SLUG` (default every chain)")
	fs.StringVar(&subject, "subject", "", "only the acts of `NAME`")
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("audit export takes no arguments, got %q", fs.Arg(0))}
	}
	q := server.AuditQuery{All: repo == "", Chain: repo, Subject: subject}
	if since != "" {
		t, err := parseTime(since)
		if err != nil {
			return usageError{fmt.Errorf("--since: %w", err)}
		}
		q.Since = t
	}
	log, closeLog, err := openAuditLog(ctx, dataDir, databaseURL)
	if err != nil {
		return err
	}
	defer closeLog()
	_, err = audit.Export(ctx, log, q, e.stdout)
	return err
}

// parseTime reads an RFC 3339 time, one without seconds, or a date (UTC).
func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time: want RFC 3339 (2026-12-01T10:00:00Z), 2026-12-01T10:00Z or 2026-12-01", s)
}
