package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/teammem/teammem/client/agent"
	"github.com/teammem/teammem/client/gitremote"
)

func init() {
	register(command{Name: "sync", Summary: "pull, then push local changes, once (exit 0 only when everything moved)",
		Run: oneShot("sync", true, (*agent.Engine).Sync)})
}

// oneShot builds the Run of sync, pull or push: parse the common flags,
// then for each folder registered for the checkout (its team folder, and
// its private memory folder when personal memory is on for it: see
// oneShotFolders) lock, run one cycle of the engine and print its report;
// exit 0 only when everything that should move moved in every folder.
func oneShot(name string, pushes bool, op func(*agent.Engine, context.Context) (agent.Report, error)) func(context.Context, *cliEnv, []string) error {
	return func(ctx context.Context, e *cliEnv, args []string) error {
		fs := newFlagSet(name, name+" [flags]", e.Stdout)
		var c commonFlags
		c.register(fs)
		c.registerPersonal(fs, personalUsage)
		var allowMass, reseed *bool
		if pushes {
			allowMass = massDeleteFlag(fs)
		}
		if name == "sync" {
			reseed = fs.Bool("reseed", false, "upload the folder to a server that lost this repo's data (three-way against what it still has, the journal as base)")
		}
		if err := parseFlags(fs, args, e.Getenv); err != nil {
			return helpOK(err)
		}
		o := engineOpts{}
		if allowMass != nil {
			o.allowMassDelete = *allowMass
		}
		if reseed != nil {
			o.reseed = *reseed
		}
		folders := oneShotFolders(e, c)
		errs := oneShotOrgs(ctx, e, name, c, o, op)
		head := len(folders) > 1 || len(errs) > 0
		for _, f := range folders {
			errs = append(errs, oneShotFolder(ctx, e, name, f, o, op, head))
		}
		return errors.Join(errs...)
	}
}

// oneShotFolder runs one cycle of op on the folder of c and prints its
// report, headed by which folder it was when several are synced.
func oneShotFolder(ctx context.Context, e *cliEnv, name string, c commonFlags, o engineOpts,
	op func(*agent.Engine, context.Context) (agent.Report, error), head bool) error {
	s, err := newSession(e, name, c)
	if err != nil {
		return err
	}
	if head && !c.json {
		kind := "team memory"
		if c.personal {
			kind = "personal memory"
		}
		fmt.Fprintf(e.Stdout, "%s %s (%s):\n", kind, s.slug, s.dir)
	}
	if !c.personal && c.dir == "" {
		s.orgs = orgFoldersOf(e, s.slug)
	}
	return runOneShot(ctx, s, o, op)
}

// runOneShot runs one cycle of op on the session's folder and prints its
// report.
func runOneShot(ctx context.Context, s *session, o engineOpts, op func(*agent.Engine, context.Context) (agent.Report, error)) error {
	sy, err := openSyncer(s, o)
	if err != nil {
		return s.explain(err)
	}
	defer sy.Close()
	r, err := op(sy.Engine, ctx)
	err = s.explain(err)
	s.out.report(s.slug, "", r, err)
	if err != nil {
		return err
	}
	return incomplete(r)
}

// oneShotFolders returns the folders a one-shot command works on: the one
// the flags name and, when they name a checkout's team folder (no --dir,
// no --personal) of a checkout registered with personal memory on
// (agent.toml), its private memory folder too, as `run` syncs both.
func oneShotFolders(e *cliEnv, c commonFlags) []commonFlags {
	out := []commonFlags{c}
	if c.personal || c.dir != "" {
		return out
	}
	probe := c
	uc, err := probe.applyConfig(e)
	if err != nil {
		return out // newSession says what is wrong with the configuration
	}
	dir, err := repoDir(e, c)
	if err != nil {
		return out
	}
	if root, err := gitremote.FindRepo(dir); err == nil {
		dir = root
	}
	for _, co := range uc.Checkouts {
		if filepath.Clean(co.Path) == filepath.Clean(dir) && uc.PersonalFor(co) {
			personal := c
			personal.personal = true
			if personal.repo == "" {
				personal.repo = co.Repo
			}
			return append(out, personal)
		}
	}
	return out
}
