package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"time"

	"github.com/teammem/teammem/internal/buildinfo"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/sqlite"
)

const personalUsage = `Usage: teammem-server personal <command> [flags]

Commands:
  delete  erase every personal memory of a subject (--subject S --yes)

Run 'teammem-server personal <command> --help' for a command's flags.
`

// runPersonal implements `personal delete`.
func runPersonal(ctx context.Context, args []string, e env) error {
	if len(args) == 0 {
		return usageError{errors.New("personal needs a command: delete (see teammem-server personal --help)")}
	}
	switch args[0] {
	case "delete":
		return runPersonalDelete(ctx, args[1:], e)
	case "-h", "--help", "help":
		fmt.Fprint(e.stdout, personalUsage)
		return nil
	}
	return usageError{fmt.Errorf("unknown personal command %q: want delete", args[0])}
}

// runPersonalDelete erases a subject's personal repositories (a departed
// user's) in the database directly: each is emptied of its entries,
// tombstones, history and search text (server.Store.EraseRepo). Without
// --yes it lists them only. Each erase is audited: one JSON line on
// stderr naming the subject, the repository, what it held, who ran the
// command and when.
func runPersonalDelete(ctx context.Context, args []string, e env) error {
	var subject, dataDir, databaseURL string
	var yes bool
	fs := newFlagSet("personal delete", "teammem-server personal delete --subject NAME [--yes] [--data-dir DIR | --database-url URL]", e.stderr)
	fs.StringVar(&subject, "subject", "", "the token subject `NAME` whose personal memory is erased (as token list shows it; oidc:<sub> for OIDC users)")
	fs.BoolVar(&yes, "yes", false, "erase; without it the repositories are only listed")
	storeFlags(fs, &dataDir, &databaseURL)
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("personal delete takes no arguments, got %q", fs.Arg(0))}
	case subject == "":
		return usageError{errors.New("--subject is required")}
	}
	// A name no token can carry is a typing mistake: the revocation's
	// rule for a subject says which.
	if err := (server.Revocation{Subject: subject, Before: time.Now()}).Check(); err != nil {
		return usageError{err}
	}
	store, closeStore, err := openAdminStore(ctx, dataDir, databaseURL, "erase")
	if err != nil {
		return err
	}
	defer closeStore()
	repos, err := personalRepos(ctx, store, subject)
	if err != nil {
		return err
	}
	if len(repos) == 0 {
		fmt.Fprintf(e.stdout, "%s has no personal memory\n", subject)
		return nil
	}
	if !yes {
		for _, st := range repos {
			fmt.Fprintf(e.stdout, "would erase %s (personal memory of %s): %d entries, %d bytes\n", st.Repo, server.PersonalSlug(st.Repo), st.Entries, st.Bytes)
		}
		fmt.Fprintln(e.stdout, "nothing erased: pass --yes to erase them")
		return nil
	}
	audit := slog.New(slog.NewJSONHandler(e.stderr, nil))
	operator := operatorName()
	for _, st := range repos {
		before, after, err := store.EraseRepo(operatorContext(ctx), st.Repo)
		if errors.Is(err, server.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("erase %s: %w", st.Repo, err)
		}
		audit.Info("audit", "action", "personal delete", "subject", subject, "repo", st.Repo, "slug", server.PersonalSlug(st.Repo),
			"entries", before.Entries, "bytes", before.Bytes, "version", before.Version, "erased_version", after.Version,
			"operator", operator)
		fmt.Fprintf(e.stdout, "erased %s (personal memory of %s): %d entries, %d bytes, and their history\n", st.Repo, server.PersonalSlug(st.Repo), before.Entries, before.Bytes)
	}
	return nil
}

// personalRepos returns the subject's personal repositories that hold
// data.
func personalRepos(ctx context.Context, store server.Store, subject string) ([]server.RepoState, error) {
	repos, err := store.Repos(ctx, server.PersonalPrefix(subject))
	if err != nil {
		return nil, fmt.Errorf("list repositories: %w", err)
	}
	return repos, nil
}

// openAdminStore opens Postgres at databaseURL (beside running servers:
// they see a change as a new version), else the embedded store in
// dataDir, which only a stopped server lets go of (task says what the
// command does, for that refusal).
func openAdminStore(ctx context.Context, dataDir, databaseURL, task string) (server.Store, func(), error) {
	if databaseURL != "" {
		db, err := postgres.Open(ctx, databaseURL, postgres.Options{MaxConns: 2})
		if err != nil {
			return nil, nil, err
		}
		return db, func() { _ = db.Close() }, nil
	}
	path := filepath.Join(dataDir, embeddedDBName)
	if _, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("no embedded store at %s: pass the server's --data-dir (%w)", path, err)
	}
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if errors.Is(err, sqlite.ErrLocked) {
		return nil, nil, fmt.Errorf("the server holds %s: stop it, %s, and start it again (the embedded store has one writer)", path, task)
	}
	if err != nil {
		return nil, nil, err
	}
	return db, func() { _ = db.Close() }, nil
}

// operatorContext is ctx naming the operator who runs the command as
// the actor of the administrative acts it records in the audit log.
func operatorContext(ctx context.Context) context.Context {
	return server.WithAuditActor(ctx, server.AuditActor{Subject: "operator:" + operatorName(), Surface: "cli", Client: operatorClient()})
}

// operatorClient is the client an operator's acts are recorded through.
func operatorClient() string { return "teammem-server/" + buildinfo.Version(version) }

// operatorName names who runs the command, for the audit line.
func operatorName() string {
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	if host, err := os.Hostname(); err == nil {
		name += "@" + host
	}
	return name
}
