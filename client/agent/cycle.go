package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/internal/linediff"
	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/protocol"
)

// Sync pulls, reconciles, applies the server's changes locally and pushes
// the local ones (the `sync` command), retrying on 412 with backoff. The
// journal is saved after every successful step.
func (e *Engine) Sync(ctx context.Context) (Report, error) {
	return e.cycle(ctx, modeSync)
}

// Pull pulls, reconciles and applies the server's changes locally only.
func (e *Engine) Pull(ctx context.Context) (Report, error) {
	return e.cycle(ctx, modePull)
}

// Push reconciles against the last server view (pulling first if there is
// none) and pushes local changes only: it never writes or deletes a local
// file. Keys the server changed (to be written, deleted or merged locally)
// are not pushed; they are listed in the report's PendingPull.
func (e *Engine) Push(ctx context.Context) (Report, error) {
	return e.cycle(ctx, modePush)
}

// mode says which way a cycle moves changes: pull fetches the server's
// view first (a cycle without one pulls anyway), local applies the
// server's changes to the folder, push uploads the local ones.
type mode struct{ pull, local, push bool }

// The cycles of the commands, and of Run (modeRun: the view is pulled
// only on a poll or a retry).
var (
	modeSync = mode{pull: true, local: true, push: true}
	modePull = mode{pull: true, local: true}
	modePush = mode{push: true}
	modeRun  = mode{local: true, push: true}
)

// cycle runs pull? → reconcile → apply → push?, repeating after a 412. A
// pull answered 304 while the folder is known unchanged (see
// localView.settled) and the last cycle succeeded ends the cycle at once:
// no scan, no journal write.
func (e *Engine) cycle(ctx context.Context, m mode) (Report, error) {
	var r Report
	if err := e.checkReplaced(); err != nil { // nothing read, written or saved
		r.Err = err
		e.report(r)
		return r, err
	}
	e.skipsNow, e.idle = nil, false
	e.cons.observe(e.cfg.Now())
	carried, warnings := e.checkReplacedFiles(false)
	if len(warnings) > 0 { // a replan would drop them from r
		e.report(Report{Warnings: warnings})
	}
	if carried {
		e.settled = false // a file changed: no idle end
	}
	err := e.cycleLoop(ctx, m, &r)
	if e.skipsNow != nil { // the folder was scanned: these were said
		e.skipsSaid = e.skipsNow
	}
	// Held changes are still to push; proposals are asked after each cycle.
	e.settled = err == nil && len(r.Held) == 0 && len(e.kept.proposed) == 0
	r.Awaiting = e.awaiting()
	if err == nil && m.push && !e.cons.holding() && e.cons.ended != nil {
		r.Consolidation = e.cons.ended
		e.cons.pushed()
	}
	applied := err == nil && m.local // the server's changes are in the folder
	if applied {
		e.cfg.Journal.settle()
	}
	r.Version, r.Checksum, r.Err = e.view.version, e.view.checksum, err
	if serr := e.saveJournal(); serr != nil && err == nil {
		err, r.Err = serr, serr
	} else if applied {
		if ferr := e.cfg.Journal.forgetReplaced(); ferr != nil {
			err, r.Err = ferr, ferr
		}
	}
	e.publish(ctx, err, &r) // after a pull and after a local change of the index alike
	e.warnExpiry(&r)
	e.report(r)
	return r, err
}

func (e *Engine) cycleLoop(ctx context.Context, m mode, r *Report) error {
	b := newBackoff(e.cfg.Backoff/10, e.cfg.Backoff*5)
	for attempt := 0; ; attempt++ {
		if m.pull || !e.view.loaded {
			changed, err := e.pull(ctx)
			if err != nil {
				return err
			}
			if !changed && attempt == 0 && e.settled && e.local.settled() {
				e.idle = true
				return nil
			}
		}
		err := e.reconcileOnce(ctx, m, r)
		replan := errors.Is(err, client.ErrPreconditionFailed) || errors.Is(err, errReplan) ||
			errors.Is(err, errLocalChanged)
		if !replan || attempt == maxConflictRetries {
			return err
		}
		m.pull = true // someone pushed meanwhile: fetch and decide again
		if err := sleepCtx(ctx, b.next(0)); err != nil {
			return err
		}
	}
}

// pull brings the server view up to date: since the last version with
// If-None-Match when the repo exists, in full otherwise, and in full again
// when the answer since a version cannot be trusted (a 410, a version that
// went back, a checksum the view does not add up to). It reports whether
// the view may have changed (false for a 304, or a 404 again).
func (e *Engine) pull(ctx context.Context) (bool, error) {
	opts := client.GetOptions{}
	if e.view.exists() {
		opts = client.GetOptions{IfNoneMatch: e.view.checksum, Since: e.view.version}
	}
	m, err := e.cfg.Remote.Get(ctx, e.cfg.Repo, opts)
	e.noteRefusal(err)
	switch {
	case errors.Is(err, client.ErrNotModified):
		return false, nil
	case errors.Is(err, client.ErrGone) && opts.Since > 0:
		// The server cannot list what changed since then; the journal is
		// still the last agreed base: pull in full and reconcile against it.
		e.view.loaded = false
		return e.pull(ctx)
	case errors.Is(err, client.ErrNotFound):
		if err := e.checkLost(0); err != nil {
			return false, err
		}
		changed := e.view.exists() || !e.view.loaded
		e.view.reset()
		return changed, nil
	case err != nil:
		return false, fmt.Errorf("pull: %w", err)
	}
	if err := e.checkLost(m.Version); err != nil {
		return false, err
	}
	if opts.Since == 0 {
		e.view.replace(m)
	} else if !e.view.applySince(m, opts.Since) {
		// The server's data was reset or the view drifted: start afresh.
		e.view.loaded = false
		return e.pull(ctx)
	}
	e.cfg.Journal.SetDataset(e.view.checksum, e.view.version)
	return true, nil
}

// checkLost returns an error wrapping ErrServerLostData when the server's
// version (0 for a repo it does not have) is below the version the journal
// last synced, unless the engine reseeds.
func (e *Engine) checkLost(version int64) error {
	synced := e.cfg.Journal.Version
	if version >= synced || e.cfg.Reseed {
		return nil
	}
	return fmt.Errorf("pull: %w: the server is at version %d, this folder last synced version %d; nothing is pushed until `teammem-agent sync --reseed` uploads the folder",
		ErrServerLostData, version, synced)
}

// reconcileOnce scans the folder, plans, applies local steps and, when
// push is set, pushes the rest. A scan that fails ends the cycle with an
// error wrapping ErrFolderUnavailable before anything is decided, so that
// nothing is written, deleted or pushed on the strength of a partial
// listing.
func (e *Engine) reconcileOnce(ctx context.Context, m mode, r *Report) error {
	snap, err := e.local.snapshot(e.cfg.Dir)
	if err != nil {
		// Without a complete listing every local file would look absent,
		// and edits would be overwritten: decide nothing until it reads.
		return err
	}
	// A replan reports afresh, but for what the server's answers said.
	r.Skipped, r.Warnings, r.PendingPull = append(r.Skipped[:0], r.refusals...), r.Warnings[:0], r.PendingPull[:0]
	r.Held, r.Consolidation = r.Held[:0], nil
	e.skipsNow = make(map[string]string, len(snap.Skipped))
	for _, s := range snap.Skipped {
		if e.skipNew(s) {
			r.Skipped = append(r.Skipped, s.Skip())
		}
	}
	e.cfg.Journal.settleWrites(snap.Checksums)
	if m.local && e.view.loaded {
		e.checkProposals(ctx, snap.Checksums, r)
	}
	old, err := e.oldCopies(ctx, snap.Checksums, r)
	if err != nil {
		return err
	}
	plan := Reconcile(Input{Local: snap.Checksums, LocalSkipped: snap.SkippedKeys(), Server: e.view.live,
		Tombstones: e.view.tombs, Base: e.cfg.Journal.Base(), OldCopies: old, Rails: e.cfg.Rails,
		ServerLost: e.cfg.Reseed, CaseInsensitive: caseInsensitiveFS, Exclude: e.cfg.Scan.Exclude})
	r.Warnings = append(r.Warnings, plan.Warnings...)
	if !m.local {
		plan = holdLocalSteps(plan, r)
	}
	changes, failed, raced := e.applyLocal(plan, r)
	for _, err := range failed {
		r.Warnings = append(r.Warnings, err.Error())
	}
	if err := e.saveJournal(); err != nil {
		return err
	}
	switch {
	case !m.push || len(changes) == 0:
	case e.cons.holding():
		e.hold(changes, r)
	default:
		if err := e.push(e.cons.surface(ctx), changes, r); err != nil {
			return err
		}
	}
	if raced == nil && len(failed) > 0 {
		return fmt.Errorf("apply: %w: %d keys (see the warnings)", ErrIncomplete, len(failed))
	}
	return raced
}

// holdLocalSteps returns plan without the steps that would write, delete
// or merge a local file (a push-only cycle), listing their keys in the
// report's PendingPull: the server changed them, so they are not pushed
// either, and their journal entries stay as they were.
func holdLocalSteps(plan Plan, r *Report) Plan {
	steps := make([]Step, 0, len(plan.Steps))
	for _, st := range plan.Steps {
		if st.Action.WritesLocal() || st.Action == ActionDeleteLocal || st.Action == ActionMerge {
			r.PendingPull = append(r.PendingPull, st.Key)
			continue
		}
		steps = append(steps, st)
	}
	plan.Steps = steps
	return plan
}

// applyLocal carries out the local side of a plan and returns the changes
// to push, the errors of the keys that failed, one each, and an error
// wrapping errLocalChanged for the keys left alone because their file
// changed since the scan. Topic files are written first, then the indexes
// (MEMORY.md) that may link them, then files are deleted: a reader of the
// folder (the model, the block) never sees an index line whose file is
// not there yet, nor, while a topic and its line go, a line whose file
// went first.
func (e *Engine) applyLocal(plan Plan, r *Report) (changes []Change, failed []error, raced error) {
	var writes, indexWrites, indexMerges, deletes []Step
	var errs []error
	apply := func(steps []Step) {
		for _, st := range steps {
			ch, err := e.applyStep(st, r)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			changes = append(changes, ch...)
		}
	}
	for _, st := range plan.Steps {
		switch {
		case st.Action.WritesLocal() && isIndex(st.Key): // written together below
			indexWrites = append(indexWrites, st)
		case st.Action.WritesLocal():
			writes = append(writes, st)
		case st.Action == ActionMerge && isIndex(st.Key):
			indexMerges = append(indexMerges, st)
		case st.Action == ActionDeleteLocal:
			deletes = append(deletes, st)
		default:
			apply([]Step{st})
		}
	}
	errs = append(errs, e.writeLocalAll(writes, r)...)
	apply(indexMerges)
	errs = append(errs, e.writeLocalAll(indexWrites, r)...)
	apply(deletes)
	slices.Sort(r.Pulled)
	for _, err := range errs {
		if errors.Is(err, errLocalChanged) {
			raced = err
		} else {
			failed = append(failed, err)
		}
	}
	return changes, failed, raced
}

// applyStep carries out one step locally, but for the plain writes of the
// server's content (writeLocalAll); it returns what to push.
func (e *Engine) applyStep(st Step, r *Report) ([]Change, error) {
	j := e.cfg.Journal
	switch st.Action {
	case ActionInSync:
		switch st.Server {
		case "":
			j.Forget(st.Key)
		case st.Base: // already agreed: share the server's copy of the text
			j.adopt(st.Key, st.Server, e.view.content[st.Key])
		default:
			j.Record(st.Key, e.view.content[st.Key])
		}
	case ActionDeleteLocal:
		if err := e.unchanged(st.Key, st.Local); err != nil {
			return nil, err
		}
		e.local.changed(st.Key)
		if err := memcore.SafeRemove(e.cfg.Dir, st.Key); err != nil {
			return nil, fmt.Errorf("delete %q: %w", st.Key, err)
		}
		if e.onLocalChange != nil {
			e.onLocalChange(st.Key)
		}
		j.Forget(st.Key)
		r.Deleted = append(r.Deleted, st.Key)
	case ActionPush, ActionResurrect:
		content, err := e.local.content(e.cfg.Dir, st.Key)
		if err != nil {
			return nil, err
		}
		if content = e.shareIndex(st.Key, content, r); st.Server != "" && content == e.view.content[st.Key] {
			return nil, nil // only lines held back differ: nothing to push
		}
		return []Change{{Key: st.Key, Content: content}}, nil
	case ActionPushDelete:
		return []Change{{Key: st.Key, Delete: true}}, nil
	case ActionMerge:
		return e.merge(st, r)
	}
	return nil, nil
}

// writeLocal writes content to key, unless the file no longer holds
// scanned, and records it as agreed.
func (e *Engine) writeLocal(key, scanned, content string, r *Report) error {
	e.local.changed(key)
	if content == e.view.content[key] { // the server's: agreed once written
		if err := e.markWriting(map[string]string{key: content}); err != nil {
			return err
		}
		defer e.cfg.Journal.doneWriting()
	}
	if err := e.writeIfUnchanged(key, scanned, content); err != nil {
		return err
	}
	e.cfg.Journal.Record(key, content)
	r.Pulled = append(r.Pulled, key)
	return nil
}

// merge resolves a key both sides changed: a clean three-way merge is
// written locally (and pushed unless it equals the server's); overlapping
// edits keep the server's version in place and the local one as a
// conflict copy, which is never pushed. An index (MEMORY.md at any depth)
// merges by line union instead (linediff.MergeLines) and never conflicts.
func (e *Engine) merge(st Step, r *Report) ([]Change, error) {
	if _, held := e.kept.proposed[st.Key]; held {
		return nil, nil // an open proposal's text waits for its review, never a conflict copy
	}
	base, _ := e.cfg.Journal.Content(st.Key)
	local, err := e.local.content(e.cfg.Dir, st.Key)
	if err != nil {
		return nil, err
	}
	if protocol.EntryChecksum([]byte(local)) != st.Local {
		return nil, fmt.Errorf("leave %q for now: %w", st.Key, errLocalChanged)
	}
	server := e.view.content[st.Key]
	merged, ok := linediff.Merge3(base, local, server)
	if isIndex(st.Key) { // independent lines: a union, never a conflict copy
		merged, ok = linediff.MergeLines(base, local, server), true
	}
	if !ok {
		name, err := writeConflictCopy(e.cfg.Dir, st.Key, e.cfg.Now(), e.cfg.Host, []byte(local))
		if err != nil {
			return nil, fmt.Errorf("save conflict copy of %q: %w", st.Key, err)
		}
		r.Conflicts = append(r.Conflicts, name)
		return nil, e.writeLocal(st.Key, st.Local, server, r)
	}
	if err := e.writeLocal(st.Key, st.Local, merged, r); err != nil {
		return nil, err
	}
	share := e.shareIndex(st.Key, merged, r)
	// The journal must keep the server's version as base until the push
	// succeeds, so that a failed push is merged again, not lost.
	e.cfg.Journal.Record(st.Key, server)
	if share == server {
		return nil, nil
	}
	return []Change{{Key: st.Key, Content: share}}, nil
}
