package main

import (
	"context"
	"fmt"
)

func init() {
	register(command{Name: "slug", Summary: "print the repository slug detected from the git remote", Run: runSlug})
}

// runSlug is `teammem-agent slug`: --repo canonicalised, else the slug of
// the git remote of --repo-dir (default: the working directory).
func runSlug(_ context.Context, e *cliEnv, args []string) error {
	fs := newFlagSet("slug", "slug [--repo-dir DIR] [--repo SLUG] [--json]", e.Stdout)
	var c commonFlags
	c.register(fs)
	if err := parseFlags(fs, args, e.Getenv); err != nil {
		return helpOK(err)
	}
	if _, err := newLogger(e, c.logLevel); err != nil {
		return err
	}
	slug, err := resolveSlug(e, c)
	if err != nil {
		return err
	}
	if c.json {
		newPrinter(e, "slug", true).object(map[string]string{"repo": slug})
		return nil
	}
	fmt.Fprintln(e.Stdout, slug)
	return nil
}
