package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/localsearch"
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
	if client.IsUnreachable(err) {
		return searchLocal(s, c, pos[0], limit, err)
	}
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

// searchLocal answers a search from the local memory folder, the server
// being unreachable (cause), and says so: first in the text, on stderr
// with --json. With --all, the folder is the checkout's team folder, when
// there is one.
func searchLocal(s *session, c commonFlags, query string, limit int, cause error) error {
	dir, exclude, slug := s.dir, s.exclude, s.slug
	if dir == "" {
		var err error
		if dir, exclude, err = resolveFolder(s.e, c); err != nil {
			return s.explain(cause)
		}
		slug, _ = resolveSlug(s.e, c)
	}
	hits, err := localsearch.Search(dir, query, limit, exclude...)
	if err != nil {
		return fmt.Errorf("%w; the local folder %s cannot be searched either: %w", s.explain(cause), dir, err)
	}
	note := localsearch.Note(folderKind(c), dir, cause)
	if s.flags.json {
		fmt.Fprintln(s.e.Stderr, note)
		res := api.SearchResults{Results: []api.SearchResult{}}
		for _, h := range hits {
			res.Results = append(res.Results, api.SearchResult{Repo: slug, Key: h.Key, Snippet: api.Snippet{Text: h.Snippet}})
		}
		s.out.object(res)
		return nil
	}
	fmt.Fprintln(s.e.Stdout, note)
	for _, h := range hits {
		fmt.Fprintf(s.e.Stdout, "%s  %s  (local file)\n    %s\n", slug, strconv.Quote(h.Key), h.Snippet)
	}
	if len(hits) == 0 {
		fmt.Fprintln(s.e.Stdout, "no local file matches")
	}
	return nil
}

// folderKind names the folder a session of c works on.
func folderKind(c commonFlags) string {
	if c.personal {
		return "personal memory folder"
	}
	return "team folder"
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
