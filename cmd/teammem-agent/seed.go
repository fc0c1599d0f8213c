package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/agent"
)

func init() {
	register(command{Name: "seed", Summary: "push a folder of Markdown to a repo (CI); no journal", Run: runSeed})
}

// seedAttempts bounds the retries after another writer changed the repo
// between the hashes probe and the push (412).
const seedAttempts = 5

// seedOpts are the flags of seed beyond the common ones.
type seedOpts struct {
	prune, allowMassDelete bool
}

// runSeed is `teammem-agent seed --dir DIR --repo SLUG [--prune]`: make
// the repo hold the folder's files. The folder wins over the server for
// every key it holds; with --prune the server's other keys are
// soft-deleted, within the mass-delete rail. Nothing is written locally.
func runSeed(ctx context.Context, e *cliEnv, args []string) error {
	fs := newFlagSet("seed", "seed --dir DIR --repo SLUG [--prune] [--allow-mass-delete] [flags]", e.Stdout)
	var c commonFlags
	c.register(fs)
	var o seedOpts
	fs.BoolVar(&o.prune, "prune", false, "soft-delete the repo's keys that are not in the folder")
	fs.BoolVar(&o.allowMassDelete, "allow-mass-delete", false, "with --prune, allow deleting more than half of the repo's entries")
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
	r, err := seed(ctx, withProgress(cl, e.Stderr, c.json), s.slug, s.dir, o)
	err = s.explain(err)
	s.out.report(s.slug, "", r, err)
	if err != nil {
		return err
	}
	return incomplete(r)
}

// seed pushes the folder, retrying from a fresh probe after a 412.
func seed(ctx context.Context, remote agent.Remote, repo, dir string, o seedOpts) (agent.Report, error) {
	var r agent.Report
	for attempt := 1; ; attempt++ {
		r = agent.Report{}
		err := seedOnce(ctx, remote, repo, dir, o, &r)
		if !errors.Is(err, client.ErrPreconditionFailed) || attempt == seedAttempts {
			return r, err
		}
	}
}

// seedOnce probes the repo, plans and pushes once.
func seedOnce(ctx context.Context, remote agent.Remote, repo, dir string, o seedOpts, r *agent.Report) error {
	snap, err := agent.ScanDir(dir, agent.ScanOptions{})
	if err != nil {
		return err
	}
	for _, sk := range snap.Skipped {
		r.Skipped = append(r.Skipped, sk.Skip())
	}
	h, exists, err := probe(ctx, remote, repo)
	if err != nil {
		return err
	}
	r.Version, r.Checksum = h.Version, h.Checksum
	plan := agent.Reconcile(seedInput(snap, h, o))
	r.Warnings = append(r.Warnings, plan.Warnings...)
	changes := seedChanges(plan, snap, o.prune)
	ifMatch := ""
	if exists {
		ifMatch = h.Checksum
	}
	for _, req := range agent.Batches(changes, 0) {
		resp, err := remote.Put(ctx, repo, req, ifMatch)
		if err != nil {
			return fmt.Errorf("push: %w", err)
		}
		r.Pushed = append(r.Pushed, slices.Sorted(maps.Keys(req.Entries))...)
		r.Deleted = append(r.Deleted, req.SoftDeleteKeys...)
		ifMatch, r.Version, r.Checksum = resp.Checksum, resp.Version, resp.Checksum
	}
	return nil
}

// probe fetches the repo's hashes; a repo that never held data is empty
// and does not exist (a push to it carries no If-Match).
func probe(ctx context.Context, remote agent.Remote, repo string) (*api.Hashes, bool, error) {
	h, err := remote.Hashes(ctx, repo)
	switch {
	case errors.Is(err, client.ErrNotFound):
		return &api.Hashes{EntryChecksums: map[string]string{}}, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("probe the repo: %w", err)
	}
	return h, true, nil
}

// seedInput makes the server's state the base, so that Reconcile pushes
// every local difference and (with prune) deletes every server key missing
// locally, within the rails. Without prune the base holds only local keys,
// so server-only keys are left alone.
func seedInput(snap *agent.Snapshot, h *api.Hashes, o seedOpts) agent.Input {
	base := maps.Clone(h.EntryChecksums)
	if !o.prune {
		maps.DeleteFunc(base, func(k, _ string) bool { _, local := snap.Checksums[k]; return !local })
	}
	tombs := map[string]bool{}
	for k := range h.DeletedEntries {
		tombs[k] = true
	}
	return agent.Input{Local: snap.Checksums, LocalSkipped: snap.SkippedKeys(), Server: h.EntryChecksums,
		Tombstones: tombs, Base: base, Rails: agent.Rails{AllowMassDelete: o.allowMassDelete}}
}

// seedChanges turns a plan into pushes (and deletions when pruning);
// writes toward the folder are ignored.
func seedChanges(plan agent.Plan, snap *agent.Snapshot, prune bool) []agent.Change {
	var out []agent.Change
	for _, st := range plan.Steps {
		switch {
		case st.Action.Pushes():
			out = append(out, agent.Change{Key: st.Key, Content: snap.Contents[st.Key]})
		case st.Action == agent.ActionPushDelete && prune:
			out = append(out, agent.Change{Key: st.Key, Delete: true})
		}
	}
	return out
}
