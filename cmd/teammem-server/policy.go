package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/teammem/teammem/server"
)

const policyUsage = `Usage: teammem-server policy <command> [flags]

Commands:
  set   set a repository's review policy (--repo SLUG --review off|changes|all)
  show  print a repository's review policy (--repo SLUG)

Run 'teammem-server policy <command> --help' for a command's flags.
`

// runPolicy implements `policy set` and `policy show`.
func runPolicy(ctx context.Context, args []string, e env) error {
	if len(args) == 0 {
		return usageError{errors.New("policy needs a command: set or show (see teammem-server policy --help)")}
	}
	switch args[0] {
	case "set":
		return runPolicyCommand(ctx, args[1:], e, true)
	case "show":
		return runPolicyCommand(ctx, args[1:], e, false)
	case "-h", "--help", "help":
		fmt.Fprint(e.stdout, policyUsage)
		return nil
	}
	return usageError{fmt.Errorf("unknown policy command %q: want set or show", args[0])}
}

// runPolicyCommand sets (set) or prints a repository's review policy in
// the database directly, as the repository's operator: Postgres beside
// running servers (each reads the policy on every write), the embedded
// store only while its server is stopped. A change is recorded in the
// repository's audit chain, in its transaction, with the operator.
func runPolicyCommand(ctx context.Context, args []string, e env, set bool) error {
	var repo, review, dataDir, databaseURL string
	name, synopsis := "policy show", "teammem-server policy show --repo SLUG [--data-dir DIR | --database-url URL]"
	if set {
		name, synopsis = "policy set", "teammem-server policy set --repo SLUG --review off|changes|all [--data-dir DIR | --database-url URL]"
	}
	fs := newFlagSet(name, synopsis, e.stderr)
	fs.StringVar(&repo, "repo", "", "the repository `SLUG`, such as acme/api")
	if set {
		fs.StringVar(&review, "review", "", "`POLICY`: off (every write lands), changes (edits, deletes and removed index lines wait for a reviewer), all (every write of a non-admin waits)")
	}
	storeFlags(fs, &dataDir, &databaseURL)
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("%s takes no arguments, got %q", name, fs.Arg(0))}
	case repo == "":
		return usageError{errors.New("--repo is required")}
	case set && review == "":
		return usageError{errors.New("--review is required: off, changes or all")}
	}
	pol, err := server.ParseReviewPolicy(review)
	if set && err != nil {
		return usageError{err}
	}
	store, closeStore, err := openAdminStore(ctx, dataDir, databaseURL, "set the review policy")
	if err != nil {
		return err
	}
	defer closeStore()
	rs, _ := store.(server.ReviewStore)
	svc := server.NewService(store, server.Config{Review: rs})
	p := operatorPrincipal()
	if !set {
		canon, pol, err := svc.ReviewPolicy(ctx, p, repo)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s: review %s\n", canon, pol)
		return nil
	}
	canon, err := svc.SetReviewPolicy(ctx, p, repo, pol, server.Provenance{Surface: "cli", Client: operatorClient()})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: review %s\n", canon, pol)
	return nil
}

// operatorPrincipal is the one who runs an admin command on the database:
// an admin of every repository, named in the audit log as operatorContext
// names it.
func operatorPrincipal() server.Principal {
	all, _ := server.ParseGrant("**:admin")
	return server.Principal{Subject: "operator:" + operatorName(), Grants: []server.Grant{all}, Credential: "none"}
}
