package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
)

// runTidy implements `tidy`: the health of a repository and the tidy
// plan fixing what can be fixed mechanically, printed; without --dry-run
// the plan is proposed for review as the operator (never written, whatever
// the repository's review policy), for an admin to approve. It reads and
// proposes in the database directly: Postgres beside running servers, the
// embedded store only while its server is stopped.
func runTidy(ctx context.Context, args []string, e env) error {
	var repo, kinds, dataDir, databaseURL string
	var dry bool
	fs := newFlagSet("tidy", "teammem-server tidy --repo SLUG [--kinds K,K] [--dry-run] [--data-dir DIR | --database-url URL]", e.stderr)
	fs.StringVar(&repo, "repo", "", "the repository `SLUG` to tidy")
	fs.StringVar(&kinds, "kinds", "", "the `KINDS` to fix, comma-separated (default every kind tidy fixes: "+strings.Join(health.Fixable, ", ")+")")
	fs.BoolVar(&dry, "dry-run", false, "print the findings and the plan; propose nothing (without it the plan is proposed for review, never written)")
	storeFlags(fs, &dataDir, &databaseURL)
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("tidy takes no arguments, got %q", fs.Arg(0))}
	case repo == "":
		return usageError{errors.New("--repo is required")}
	}
	only, err := health.ParseKinds(kinds)
	if err != nil {
		return usageError{err}
	}
	store, closeStore, err := openAdminStore(ctx, dataDir, databaseURL, "tidy")
	if err != nil {
		return err
	}
	defer closeStore()
	rs, _ := store.(server.ReviewStore)
	checker := &health.Checker{Service: server.NewService(store, server.Config{Review: rs})}
	operator := operatorPrincipal()
	rep, err := checker.Report(ctx, operator, repo)
	if err != nil {
		return err
	}
	printFindings(e.stdout, rep)
	if !dry {
		id, plan, err := checker.Propose(ctx, operator, repo, "cli", health.Selection{Kinds: only})
		if err != nil {
			return err
		}
		printProposal(e.stdout, id, plan)
		return nil
	}
	plan, err := checker.Plan(ctx, operator, repo, health.Selection{Kinds: only})
	if err != nil {
		return err
	}
	printPlan(e.stdout, plan)
	return nil
}

// printProposal writes what a tidy proposed: the proposal, or that there
// was nothing to propose.
func printProposal(w io.Writer, id string, p health.TidyPlan) {
	if p.Empty() {
		fmt.Fprintf(w, "nothing to tidy in %s\n", p.Repo)
		return
	}
	fmt.Fprintf(w, "proposal #%s: %d changes over version %d, waiting for an admin's review "+
		"(the web UI's Proposals page, or POST /api/v1/proposals/%s/approve); nothing is written until then\n", id, len(p.Changes), p.Base, id)
}

// printFindings writes a report, one finding a line.
func printFindings(w io.Writer, rep health.Report) {
	fmt.Fprintf(w, "%s at version %d: %d findings\n", rep.Repo, rep.Version, len(rep.Findings))
	for _, f := range rep.Findings {
		fmt.Fprintf(w, "  %-18s %s\n", f.Kind, f.Detail)
	}
}

// printPlan writes a plan: what it fixes, then each change.
func printPlan(w io.Writer, p health.TidyPlan) {
	if p.Empty() {
		fmt.Fprintf(w, "nothing to tidy in %s\n", p.Repo)
		return
	}
	fmt.Fprintf(w, "plan over version %d (dry run: nothing proposed, nothing written):\n", p.Base)
	for _, f := range p.Fixes {
		fmt.Fprintf(w, "  fix     %s\n", f)
	}
	for _, c := range p.Changes {
		if c.Delete {
			fmt.Fprintf(w, "  delete  %s (%s; a tombstone restore brings back)\n", c.Key, c.Note)
		} else {
			fmt.Fprintf(w, "  write   %s (%d lines)\n", c.Key, strings.Count(c.Content, "\n"))
		}
	}
}
