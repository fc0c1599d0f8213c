package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/teammem/teammem/client"
)

func init() {
	register(command{Name: "search", Summary: "search the team memory of this repository, or of every repository you can read (--all)",
		Run: runSearch})
}

// runSearch serves search QUERY [--repo SLUG | --all] [--limit N] [--json].
func runSearch(ctx context.Context, e *cliEnv, args []string) error {
	fs := newFlagSet("search", "search QUERY [--repo SLUG | --all] [--limit N] [flags]", e.Stdout)
	var c commonFlags
	c.register(fs)
	c.registerPersonal(fs, personalUsage)
	var all bool
	var limit int
	fs.BoolVar(&all, "all", false, "search every repository the token can read instead of this one")
	fs.IntVar(&limit, "limit", 20, "show at most `N` results (the server caps it at 50)")
	pos, err := parseArgs(fs, args, e.Getenv, 1, 1)
	if err != nil {
		return helpOK(err)
	}
	switch {
	case all && repoFlagGiven(args):
		return errUsage("search: pass --repo or --all, not both")
	case limit <= 0:
		return errUsage("search: --limit must be positive")
	}
	c.orRegistered = true
	if c.noRepo = all; all {
		c.repo = "" // --all wins over TEAMMEM_REPO
	}
	s, err := newSession(e, "search", c)
	if err != nil {
		return err
	}
	cl, err := s.newClient()
	if err != nil {
		return err
	}
	opts := client.SearchOptions{Limit: limit}
	if !all {
		opts.Repo = s.slug
	}
	res, err := cl.Search(ctx, pos[0], opts)
	if err != nil {
		return s.explain(err)
	}
	if s.flags.json {
		s.out.object(res)
		return nil
	}
	for _, r := range res.Results {
		fmt.Fprintf(s.e.Stdout, "%s  %s  (version %d)\n    %s\n", r.Repo, strconv.Quote(r.Key), r.Version, r.Snippet.Text)
	}
	if len(res.Results) == 0 {
		fmt.Fprintln(s.e.Stdout, "no entry matches")
	} else if res.Next != nil {
		fmt.Fprintf(s.e.Stdout, "(more results: raise --limit or narrow the query)\n")
	}
	return nil
}

// repoFlagGiven reports whether args pass --repo (TEAMMEM_REPO alone does
// not count: --all overrides it).
func repoFlagGiven(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "repo" {
			return true
		}
	}
	return false
}
