package main

import (
	"context"

	"github.com/teammem/teammem/client/agent"
)

func init() {
	register(command{Name: "sync", Summary: "pull, then push local changes, once (exit 0 only when everything moved)",
		Run: oneShot("sync", true, (*agent.Engine).Sync)})
}

// oneShot builds the Run of sync, pull or push: parse the common flags,
// lock, run one cycle of the engine, print its report and exit 0 only when
// everything that should move moved.
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
		s, err := newSession(e, name, c)
		if err != nil {
			return err
		}
		o := engineOpts{}
		if allowMass != nil {
			o.allowMassDelete = *allowMass
		}
		if reseed != nil {
			o.reseed = *reseed
		}
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
}
