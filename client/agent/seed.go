package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// seedAttempts bounds the retries of Seed after another writer changed
// the repo between the hashes probe and the push (412).
const seedAttempts = 5

// SeedOptions tunes Seed.
type SeedOptions struct {
	// Prune soft-deletes the repo's keys that are not in the folder.
	Prune bool
	// AllowMassDelete lifts the mass-delete rail for Prune.
	AllowMassDelete bool
}

// Seed makes the repo hold the files of the folder dir (spec/agent.md §5,
// `seed`, for CI): the folder wins over the server for every key it holds;
// with o.Prune the server's other keys are soft-deleted, within the
// mass-delete rail. It keeps no journal and writes nothing locally. Files
// that may not be pushed (an invalid key, too large, not UTF-8, a
// credential) are reported in Skipped and left out. Every push is
// conditional: If-Match the probed checksum, or If-None-Match: * for a repo
// that does not exist yet; after a 412 Seed probes and plans again, up to
// seedAttempts times.
func Seed(ctx context.Context, remote Remote, repo, dir string, o SeedOptions) (Report, error) {
	var r Report
	for attempt := 1; ; attempt++ {
		r = Report{}
		err := seedOnce(ctx, remote, repo, dir, o, &r)
		if !errors.Is(err, client.ErrPreconditionFailed) || attempt == seedAttempts {
			return r, err
		}
	}
}

// seedOnce probes the repo, plans and pushes once.
func seedOnce(ctx context.Context, remote Remote, repo, dir string, o SeedOptions, r *Report) error {
	snap, err := ScanDir(dir, ScanOptions{})
	if err != nil {
		return err
	}
	for _, sk := range snap.Skipped {
		r.Skipped = append(r.Skipped, sk.Skip())
	}
	h, exists, err := probeHashes(ctx, remote, repo)
	if err != nil {
		return err
	}
	r.Version, r.Checksum = h.Version, h.Checksum
	plan := Reconcile(seedInput(snap, h, o))
	r.Warnings = append(r.Warnings, plan.Warnings...)
	cond := client.CreateOnly
	if exists {
		cond = h.Checksum
	}
	for _, req := range Batches(seedChanges(plan, snap, o.Prune), 0) {
		resp, err := remote.Put(ctx, repo, req, cond)
		if err != nil {
			return fmt.Errorf("push: %w", err)
		}
		r.Pushed = append(r.Pushed, slices.Sorted(maps.Keys(req.Entries))...)
		r.Deleted = append(r.Deleted, req.SoftDeleteKeys...)
		cond, r.Version, r.Checksum = resp.Checksum, resp.Version, resp.Checksum
	}
	return nil
}

// probeHashes fetches the repo's hashes; a repo that never held data is
// empty and does not exist (exists false).
func probeHashes(ctx context.Context, remote Remote, repo string) (h *api.Hashes, exists bool, err error) {
	h, err = remote.Hashes(ctx, repo)
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
func seedInput(snap *Snapshot, h *api.Hashes, o SeedOptions) Input {
	base := maps.Clone(h.EntryChecksums)
	if !o.Prune {
		maps.DeleteFunc(base, func(k, _ string) bool { _, local := snap.Checksums[k]; return !local })
	}
	tombs := map[string]bool{}
	for k := range h.DeletedEntries {
		tombs[k] = true
	}
	return Input{Local: snap.Checksums, LocalSkipped: snap.SkippedKeys(), Server: h.EntryChecksums,
		Tombstones: tombs, Base: base, Rails: Rails{AllowMassDelete: o.AllowMassDelete}}
}

// seedChanges turns a plan into pushes (and deletions when pruning);
// writes toward the folder are ignored.
func seedChanges(plan Plan, snap *Snapshot, prune bool) []Change {
	var out []Change
	for _, st := range plan.Steps {
		switch {
		case st.Action.Pushes():
			out = append(out, Change{Key: st.Key, Content: snap.Contents[st.Key]})
		case st.Action == ActionPushDelete && prune:
			out = append(out, Change{Key: st.Key, Delete: true})
		}
	}
	return out
}
