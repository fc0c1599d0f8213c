package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/client/userconfig"
	"github.com/teammem/teammem/memcore/protocol"
)

// A command that only reads a repository's memory (log, show, diff,
// search) run outside any git checkout, with nothing naming a repository,
// reads that of the checkouts registered with add when they are all of
// one repository, and says so on stderr; with checkouts of several
// repositories it names them, so the person can pick one.

// useRegistered points c at the registered checkout to read when the
// working directory is in no git checkout and no flag names a repository
// or folder; it leaves c alone when there is nothing to choose from (the
// usual error follows).
func useRegistered(e *cliEnv, c *commonFlags, uc userconfig.Config) error {
	if c.repo != "" || c.repoDir != "" || c.dir != "" || len(uc.Checkouts) == 0 {
		return nil
	}
	if _, err := gitremote.FindRepo(e.Cwd); err == nil {
		return nil
	}
	var slugs, listed []string
	for _, co := range uc.Checkouts {
		slug := checkoutSlug(co)
		listed = append(listed, fmt.Sprintf("%s (%s)", co.Path, slug))
		if !slices.Contains(slugs, slug) {
			slugs = append(slugs, slug)
		}
	}
	if len(slugs) > 1 {
		return errUsage("%s is not in a git checkout, and the registered checkouts are of %d repositories: %s; cd into one, or pass --repo-dir DIR or --repo SLUG",
			e.Cwd, len(slugs), strings.Join(listed, ", "))
	}
	co := uc.Checkouts[0]
	c.repoDir, c.repo = co.Path, co.Repo
	fmt.Fprintf(e.Stderr, "teammem-agent: %s is not in a git checkout; reading %s, the repository of the registered checkout %s\n",
		e.Cwd, slugs[0], co.Path)
	return nil
}

// checkoutSlug is the repository of a registered checkout: its repo =, else
// its git remote's, else "repository unknown".
func checkoutSlug(co userconfig.Checkout) string {
	if co.Repo != "" {
		if slug, err := protocol.CanonicalSlug(co.Repo); err == nil {
			return slug
		}
	}
	if slug, err := gitremote.Slug(co.Path); err == nil {
		return slug
	}
	return "repository unknown"
}
