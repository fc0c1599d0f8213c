package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/memcore/protocol"
)

// errReplan asks the cycle to reconcile and push again at once, after the
// engine learned something from a refusal (an entry limit, a refused key).
var errReplan = errors.New("push again with what the server allows")

// push sends changes in batches, each conditional on the checksum the
// previous one returned.
func (e *Engine) push(ctx context.Context, changes []Change, r *Report) error {
	if e.blocked != "" {
		return fmt.Errorf("push: %w: %s", ErrPushBlocked, e.blocked)
	}
	changes = e.fit(changes, r)
	// Never unconditional: a repo the view believes absent is created only
	// if nobody created it meanwhile (412 otherwise, and the cycle pulls,
	// reconciles and merges before pushing again).
	ifMatch := client.CreateOnly
	if e.view.exists() {
		ifMatch = e.view.checksum
	}
	ctx = e.withHead(ctx)
	for _, req := range Batches(changes, e.cfg.BatchBytes) {
		resp, err := e.cfg.Remote.Put(ctx, e.cfg.Repo, req, ifMatch)
		if err != nil {
			return e.refused(req, err, r)
		}
		if err := e.pushed(req, resp, r); err != nil {
			return err
		}
		ifMatch = resp.Checksum
	}
	return nil
}

// pushed records a successful batch in the view and the journal. Entries
// the server left out (resp.Skipped) are reported, kept out of the journal's
// synced set and left out of later pushes until their content changes; the
// rest of the batch counts as pushed. When the server left out more than it
// lists (resp.SkippedOmitted), only what it names as changed or deleted
// counts: the view is pulled in full again and the cycle replans, so that
// the rest is reconciled against what the server holds.
func (e *Engine) pushed(req api.PutRequest, resp *api.PutResponse, r *Report) error {
	skipped := make(map[string]bool, len(resp.Skipped))
	if resp.SkippedOmitted > 0 { // unknown unless named as applied
		for k := range req.Entries {
			skipped[k] = true
		}
		for _, k := range req.SoftDeleteKeys {
			skipped[k] = true
		}
		for _, k := range slices.Concat(resp.Changed, resp.Deleted) {
			delete(skipped, k)
		}
	}
	for _, sk := range resp.Skipped {
		skipped[sk.Key] = true
		if content, ok := req.Entries[sk.Key]; ok {
			e.refuseKey(sk.Key, content, skippedReason(sk))
			e.reportRefusal(sk.Key, r)
		} else if slices.Contains(req.SoftDeleteKeys, sk.Key) {
			r.refusal(Skip{Path: sk.Key, Reason: "the server did not delete it: " + skippedReason(sk)})
		}
	}
	held := e.holdProposed(req, resp)
	for _, k := range slices.Sorted(maps.Keys(req.Entries)) {
		if skipped[k] || held[k] {
			continue
		}
		e.view.put(k, req.Entries[k])
		e.cfg.Journal.Record(k, req.Entries[k])
		delete(e.kept.refused, k) // the server took it: it is shared again
		r.Pushed = append(r.Pushed, k)
	}
	for _, k := range req.SoftDeleteKeys {
		if skipped[k] || held[k] {
			continue
		}
		e.view.del(k)
		e.cfg.Journal.Forget(k)
		r.Deleted = append(r.Deleted, k)
	}
	e.view.pushed(resp)
	e.cfg.Journal.SetDataset(resp.Checksum, resp.Version)
	if err := e.saveJournal(); err != nil {
		return err
	}
	if resp.SkippedOmitted > 0 {
		e.view.loaded = false
		return fmt.Errorf("push: %w: the server left out %d entries it did not list", errReplan, resp.SkippedOmitted)
	}
	return nil
}

// refused interprets a failed batch. 412 goes back to the cycle (pull and
// reconcile again); 401/403 stop pushing; a 413 entry limit or a refused
// entry is remembered and the cycle replans; anything else (429, 5xx,
// network) is returned for the caller to back off.
func (e *Engine) refused(req api.PutRequest, err error, r *Report) error {
	var ae *client.APIError
	errors.As(err, &ae)
	switch {
	case errors.Is(err, client.ErrUnauthorized):
		e.blocked = "the server refused the token (expired or invalid); local edits are kept and pushed after a restart with a valid token"
	case errors.Is(err, client.ErrForbidden):
		e.blocked = fmt.Sprintf("the token has no write grant for %s; local edits are kept and pushed after a restart with a token that has one", e.cfg.Repo)
	case ae != nil && ae.Code == api.CodeTooManyEntries:
		if max, _, ok := ae.EntryLimit(); ok {
			e.maxEntries = int(max)
			return fmt.Errorf("push: %w: %w", errReplan, err)
		}
	case ae != nil && (ae.Code == api.CodeEntryTooLarge || ae.Code == api.CodeSecretDetected || ae.Code == api.CodeKeyCollision):
		if e.refuse(req, ae, r) {
			return fmt.Errorf("push: %w: %w", errReplan, err)
		}
	case ae != nil && isSizeRefusal(ae) && len(req.Entries) > 0:
		// Retrying the same batch would fail the same way: leave its
		// entries out until they change, and push the rest.
		for key := range req.Entries {
			e.refuseKey(key, req.Entries[key], ae.Message)
		}
		return fmt.Errorf("push: %w: %w", errReplan, err)
	}
	if e.blocked != "" {
		r.Warnings = append(r.Warnings, e.blocked)
		return fmt.Errorf("push: %w: %w", ErrPushBlocked, err)
	}
	return fmt.Errorf("push: %w", err)
}

// refuse remembers the entry the server refused (the key it names, or the
// batch's only entry: too large, a credential, a key colliding with
// another) so that it is left out until its content changes.
func (e *Engine) refuse(req api.PutRequest, ae *client.APIError, r *Report) bool {
	key := ae.DetailString("key")
	if _, ok := req.Entries[key]; !ok {
		if len(req.Entries) != 1 {
			return false
		}
		for k := range req.Entries {
			key = k
		}
	}
	e.refuseKey(key, req.Entries[key], ae.Message)
	return true
}

// isSizeRefusal reports a 413 for the repository's byte total or the
// request body's size: code-less with details.reason (protocol §4), or with
// the error codes older servers sent.
func isSizeRefusal(ae *client.APIError) bool {
	switch ae.Code {
	case api.CodeRepoTooLarge, api.CodeRequestTooLarge:
		return true
	case "":
		reason := ae.DetailString("reason")
		return reason == api.ReasonRepoTooLarge || reason == api.ReasonRequestTooLarge
	}
	return false
}

// skippedReason phrases an entry the server left out: its reason code and
// the server's sentence (which names a secret's rule, never the secret).
func skippedReason(sk api.SkippedEntry) string {
	return sk.Reason + ": " + sk.Message
}

// refuseKey leaves key out of pushes until its content is no longer
// content, for the reason the server gave.
func (e *Engine) refuseKey(key, content, why string) {
	if e.kept.refused == nil {
		e.kept.refused = map[string]refusal{}
	}
	e.kept.refused[key] = refusal{checksum: protocol.EntryChecksum([]byte(content)),
		why: Skip{Path: key, Reason: "the server refused it: " + why}}
}

// withholding is what the engine keeps from the server, each said once:
// the entries the server refused, until their content changes, and per
// index the lines held back from its push because they link a file that
// is not shared (see shareIndex).
type withholding struct {
	refused map[string]refusal
	// proposed holds the keys kept in an open proposal (see review.go).
	proposed map[string]heldProposal
	// lines holds, per index key, the lines last held back.
	lines map[string]string
}

// refusal is an entry the server refused and why.
type refusal struct {
	checksum string
	why      Skip
	reported bool // in a cycle's report already: once per change of the entry
}

// reportRefusal adds the refusal of key to r unless an earlier cycle
// reported it (for the same content).
func (e *Engine) reportRefusal(key string, r *Report) {
	ref := e.kept.refused[key]
	if ref.reported {
		return
	}
	r.refusal(ref.why)
	ref.reported = true
	e.kept.refused[key] = ref
}

// fit drops refused entries and, once the server's entry limit is known,
// the new keys (last in key order) that would exceed it.
func (e *Engine) fit(changes []Change, r *Report) []Change {
	var out []Change
	live := len(e.view.live)
	for _, c := range changes {
		if ref, ok := e.kept.refused[c.Key]; ok && !c.Delete && ref.checksum == protocol.EntryChecksum([]byte(c.Content)) {
			e.reportRefusal(c.Key, r)
			continue
		}
		if e.heldChange(c) {
			continue
		}
		if c.Delete {
			live--
		}
		out = append(out, c)
	}
	if e.maxEntries <= 0 {
		return out
	}
	var kept []Change
	var left []string
	for _, c := range out {
		if _, exists := e.view.live[c.Key]; !c.Delete && !exists {
			if live >= e.maxEntries {
				left = append(left, c.Key)
				continue
			}
			live++
		}
		kept = append(kept, c)
	}
	if len(left) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the server holds at most %d entries: %d new files not pushed: %q",
			e.maxEntries, len(left), left))
	}
	return kept
}
