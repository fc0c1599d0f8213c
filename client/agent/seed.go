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
	// Prune soft-deletes the keys the folder owns that it no longer holds,
	// and the index lines linking only keys the folder owns (see Seed).
	Prune bool
	// AllowMassDelete lifts the mass-delete rail for Prune.
	AllowMassDelete bool
}

// SeedRemote is what Seed needs of the server: the sync protocol, and for
// --prune who the seed is and who wrote each key last.
type SeedRemote interface {
	Remote
	Whoami(ctx context.Context) (*api.Whoami, error)
	History(ctx context.Context, repo, key string, opts client.HistoryOptions) (*api.History, error)
}

// Seed makes the repo hold the files of the folder dir (spec/agent.md §5,
// `seed`, for CI), writing like a teammate's agent: the folder wins over
// the server for every topic it holds, and an index (MEMORY.md) is merged
// by line with the server's (SeedIndex), so teammates' lines stay. Nothing
// else is removed unless o.Prune, and then only what the folder owns: a key
// the server holds that the folder does not is soft-deleted when the
// newest revision of it was written by the seed's own subject (an earlier
// seed of this folder); a key a teammate wrote last is kept and named in
// the notes. Index lines are pruned as SeedIndex says. Deletions stay
// within the mass-delete rail. Seed keeps no journal and writes nothing
// locally. Files that may not be pushed (an invalid key, too large, not
// UTF-8, a credential) are reported in Skipped and left out. Every push is
// conditional: If-Match the probed checksum, or If-None-Match: * for a repo
// that does not exist yet; after a 412 Seed probes and plans again, up to
// seedAttempts times.
func Seed(ctx context.Context, remote SeedRemote, repo, dir string, o SeedOptions) (Report, error) {
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
func seedOnce(ctx context.Context, remote SeedRemote, repo, dir string, o SeedOptions, r *Report) error {
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
	owned, err := seedOwned(ctx, remote, repo, snap, h, o, r)
	if err != nil {
		return err
	}
	plan := Reconcile(seedInput(snap, h, owned, o))
	r.Warnings = append(r.Warnings, plan.Warnings...)
	changes, err := seedChanges(ctx, remote, repo, plan, snap, h, owned, o, r)
	if err != nil {
		return err
	}
	cond := client.CreateOnly
	if exists {
		cond = h.Checksum
	}
	ctx = client.WithSurface(ctx, "seed")
	for _, req := range Batches(changes, 0) {
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

// seedOwned returns the server's live keys missing from the folder that
// the folder owns: with o.Prune, those whose newest revision the seed's own
// subject wrote. The others are named in r.Notes. Without o.Prune it asks
// nothing and owns nothing.
func seedOwned(ctx context.Context, remote SeedRemote, repo string, snap *Snapshot, h *api.Hashes, o SeedOptions, r *Report) (map[string]bool, error) {
	owned := map[string]bool{}
	if !o.Prune {
		return owned, nil
	}
	var missing []string
	for k := range h.EntryChecksums {
		if _, local := snap.Checksums[k]; !local && !snap.SkippedKeys()[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return owned, nil
	}
	me, err := remote.Whoami(ctx)
	if err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	var kept []string
	for _, k := range slices.Sorted(slices.Values(missing)) {
		hist, err := remote.History(ctx, repo, k, client.HistoryOptions{Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("prune: who wrote %q last: %w", k, err)
		}
		if len(hist.Revisions) > 0 && hist.Revisions[0].Author == me.Subject {
			owned[k] = true
		} else {
			kept = append(kept, k)
		}
	}
	if len(kept) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("--prune kept %s not in the folder that someone other than %q wrote last: %s",
			Plural(len(kept), "key", "keys"), me.Subject, QuoteList(kept, 20)))
	}
	return owned, nil
}

// seedInput makes the server's state the base, so that Reconcile pushes
// every local difference and deletes the server keys the folder owns and
// no longer holds (owned), within the rails; server keys neither local nor
// owned are left out of the base, so they are left alone.
func seedInput(snap *Snapshot, h *api.Hashes, owned map[string]bool, o SeedOptions) Input {
	base := maps.Clone(h.EntryChecksums)
	maps.DeleteFunc(base, func(k, _ string) bool { _, local := snap.Checksums[k]; return !local && !(o.Prune && owned[k]) })
	tombs := map[string]bool{}
	for k := range h.DeletedEntries {
		tombs[k] = true
	}
	return Input{Local: snap.Checksums, LocalSkipped: snap.SkippedKeys(), Server: h.EntryChecksums,
		Tombstones: tombs, Base: base, Rails: Rails{AllowMassDelete: o.AllowMassDelete}}
}

// seedChanges turns a plan into pushes (and deletions when pruning);
// writes toward the folder are ignored. An index the server also holds is
// pushed merged with the server's (SeedIndex); one that merges to the
// server's own text is not pushed.
func seedChanges(ctx context.Context, remote Remote, repo string, plan Plan, snap *Snapshot, h *api.Hashes,
	owned map[string]bool, o SeedOptions, r *Report) ([]Change, error) {
	var out []Change
	var server map[string]string
	for _, st := range plan.Steps {
		switch {
		case st.Action.Pushes() && isIndex(st.Key) && h.EntryChecksums[st.Key] != "":
			if server == nil {
				m, err := remote.Get(ctx, repo, client.GetOptions{})
				if err != nil {
					return nil, fmt.Errorf("pull the index to merge: %w", err)
				}
				server = m.Content.Entries
			}
			isOwned := func(k string) bool { _, local := snap.Checksums[k]; return local || owned[k] }
			m := SeedIndex(st.Key, server[st.Key], snap.Contents[st.Key], o.Prune, isOwned)
			r.Notes = append(r.Notes, fmt.Sprintf("%s: merged by line with the server's: %s added, %d removed, the rest kept",
				st.Key, Plural(m.Added, "line", "lines"), m.Removed))
			if m.Content != server[st.Key] {
				out = append(out, Change{Key: st.Key, Content: m.Content})
			}
		case st.Action.Pushes():
			out = append(out, Change{Key: st.Key, Content: snap.Contents[st.Key]})
		case st.Action == ActionPushDelete && o.Prune:
			out = append(out, Change{Key: st.Key, Delete: true})
		}
	}
	return seedPrunedLines(ctx, remote, repo, out, snap, h, owned, r, server)
}

// seedPrunedLines adds to changes the server's indexes the folder does not
// hold, with the lines that link only keys this seed prunes removed, so a
// pruned topic leaves no dangling line behind.
func seedPrunedLines(ctx context.Context, remote Remote, repo string, changes []Change, snap *Snapshot, h *api.Hashes,
	owned map[string]bool, r *Report, server map[string]string) ([]Change, error) {
	pruned := map[string]bool{}
	for _, c := range changes {
		if c.Delete && owned[c.Key] {
			pruned[c.Key] = true
		}
	}
	if len(pruned) == 0 {
		return changes, nil
	}
	for _, k := range slices.Sorted(maps.Keys(h.EntryChecksums)) {
		if _, local := snap.Checksums[k]; local || !isIndex(k) || pruned[k] {
			continue
		}
		if server == nil {
			m, err := remote.Get(ctx, repo, client.GetOptions{})
			if err != nil {
				return nil, fmt.Errorf("pull the index to prune: %w", err)
			}
			server = m.Content.Entries
		}
		m := SeedIndex(k, server[k], "", true, func(key string) bool { return pruned[key] })
		if m.Removed > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %s linking pruned keys removed", k, Plural(m.Removed, "line", "lines")))
			changes = append(changes, Change{Key: k, Content: m.Content})
		}
	}
	return changes, nil
}
