package main

import (
	"context"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"

	"github.com/teammem/teammem/client/agent"
)

func init() {
	register(command{Name: "seed", Summary: "push a folder of Markdown to a repo (CI); no journal", Run: runSeed})
}

// runSeed is `teammem-agent seed --dir DIR --repo SLUG [--prune]`: make
// the repo hold the folder's files, as a teammate's agent writes them (see
// agent.Seed: indexes merge by line; --prune removes only what the folder
// owns). Nothing is written locally.
func runSeed(ctx context.Context, e *cliEnv, args []string) error {
	fs := newFlagSet("seed", "seed --dir DIR --repo SLUG [--prune] [--allow-mass-delete] [flags]", e.Stdout)
	// Only the flags seed uses: it keeps no journal (no state directory)
	// and writes nothing into a checkout (no block, no stale marks).
	var c commonFlags
	c.registerConnection(fs)
	fs.StringVar(&c.dir, "dir", "", "the folder `DIR` of Markdown to push (required)")
	c.registerJSON(fs)
	var o agent.SeedOptions
	fs.BoolVar(&o.Prune, "prune", false, "soft-delete the keys an earlier seed wrote that the folder no longer holds, and their index lines")
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
	if head := s.headReader(); head != nil {
		ctx = client.WithCommit(ctx, head())
	}
	r, err := agent.Seed(ctx, seedRemote{withProgress(cl, e.Stderr, c.json), cl}, s.slug, s.dir, o)
	err = s.explain(err)
	s.out.report(s.slug, "", r, err)
	if err != nil {
		return err
	}
	return incomplete(r)
}

// seedRemote adds to the (progress-showing) remote what seed --prune asks:
// who the seed is and who wrote a key last.
type seedRemote struct {
	agent.Remote
	cl *client.Client
}

func (s seedRemote) Whoami(ctx context.Context) (*api.Whoami, error) { return s.cl.Whoami(ctx) }

func (s seedRemote) History(ctx context.Context, repo, key string, o client.HistoryOptions) (*api.History, error) {
	return s.cl.History(ctx, repo, key, o)
}
