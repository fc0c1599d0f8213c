package main

import (
	"context"

	"github.com/teammem/teammem/client/agent"
)

func init() {
	register(command{Name: "seed", Summary: "push a folder of Markdown to a repo (CI); no journal", Run: runSeed})
}

// runSeed is `teammem-agent seed --dir DIR --repo SLUG [--prune]`: make
// the repo hold the folder's files. The folder wins over the server for
// every key it holds; with --prune the server's other keys are
// soft-deleted, within the mass-delete rail. Nothing is written locally.
func runSeed(ctx context.Context, e *cliEnv, args []string) error {
	fs := newFlagSet("seed", "seed --dir DIR --repo SLUG [--prune] [--allow-mass-delete] [flags]", e.Stdout)
	var c commonFlags
	c.register(fs)
	var o agent.SeedOptions
	fs.BoolVar(&o.Prune, "prune", false, "soft-delete the repo's keys that are not in the folder")
	fs.BoolVar(&o.AllowMassDelete, "allow-mass-delete", false, "with --prune, allow deleting more than half of the repo's entries")
	if err := parseFlags(fs, args, e.Getenv); err != nil {
		return helpOK(err)
	}
	if c.dir == "" {
		return errUsage("seed: --dir DIR is required")
	}
	s, err := newSession(e, "seed", c)
	if err != nil {
		return err
	}
	cl, err := s.newClient()
	if err != nil {
		return err
	}
	r, err := agent.Seed(ctx, withProgress(cl, e.Stderr, c.json), s.slug, s.dir, o)
	err = s.explain(err)
	s.out.report(s.slug, "", r, err)
	if err != nil {
		return err
	}
	return incomplete(r)
}
