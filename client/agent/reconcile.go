package agent

import (
	"fmt"
	"slices"

	"github.com/teammem/teammem/memcore/protocol"
)

// Input is everything Reconcile decides from. Every map goes from key to
// entry checksum ("sha256:<hex>"); a key missing from a map is absent there.
// Reconcile does not modify the maps.
type Input struct {
	// Local holds the push candidates found in the team folder.
	Local map[string]string
	// Server holds the server's live keys.
	Server map[string]string
	// Tombstones holds the keys the server has soft-deleted.
	Tombstones map[string]bool
	// Base holds the checksums last agreed with the server (the journal).
	Base map[string]string
	// LocalSkipped holds local files that exist but may not be pushed (see
	// CheckEntry): nothing moves for them in either direction, so that
	// neither the local edit nor the server's copy is lost.
	LocalSkipped map[string]bool
	// Exclude names the folders (ScanOptions.Exclude) whose keys are not
	// synced: a server key below one is skipped with a warning, never
	// written locally (personal memory never writes into the team folder).
	Exclude []string
	// CaseInsensitive says the local file system folds case (Windows and
	// macOS by default): two server keys differing only in case cannot both
	// be files, so both are skipped with a warning naming them, never
	// written one over the other.
	CaseInsensitive bool
	// LocalUnavailable says the team folder is missing or unreadable, so
	// that Local is not to be trusted for deletions.
	LocalUnavailable bool
	// Rails tunes the mass-deletion safety rail.
	Rails Rails
	// OldCopies holds local keys unknown to the base whose local content
	// the server's history holds as a past revision of that key (looked
	// up on a folder's first sync without a journal, see
	// Journal.Unsettled): such a file is an old copy, not an edit. When the
	// server changed the key since, its version is written locally; when
	// it deleted it (a tombstone), the file is deleted. A key the server
	// neither holds nor lists as deleted is not affected.
	OldCopies map[string]bool
	// ServerLost says the server lost the repo's data (sync --reseed): a
	// key in the base, unchanged locally, that the server neither holds
	// nor lists as deleted is pushed again instead of deleted locally.
	ServerLost bool
}

// Step is the decision for one key, with the three checksums it was made
// from ("" = absent).
type Step struct {
	Key    string
	Action Action
	Local  string
	Server string
	Base   string
	// Reason explains ActionSkip, ActionHold, a Push of a key the server
	// lost and the steps taken for an old copy (Input.OldCopies); empty
	// otherwise.
	Reason string
}

// Plan is the outcome of Reconcile: one step per key in key order, and
// warnings meant for the user (keys quoted with %q).
type Plan struct {
	Steps    []Step
	Warnings []string
}

// Reconcile decides what to do with every key present locally, on the server
// or in the base, following spec/agent.md §2, then applies the safety rails
// (see Rails). It is pure: it reads nothing but its input.
//
// Keys that fail protocol.ValidateKey, and conflict copies, are skipped with
// a warning (local conflict copies silently: they are never pushed). A key
// in the base, unchanged locally, that the server neither holds nor lists
// as deleted was deleted there and its tombstone purged since: it is
// deleted locally (pushed again only with in.ServerLost). A local key
// and a different server key whose names differ only in case
// (protocol.FoldKey) are both skipped with a warning naming them: on a
// case-insensitive file system one would overwrite the other.
func Reconcile(in Input) Plan {
	var p Plan
	folded, foldWarn := foldCollisions(in)
	for _, key := range unionKeys(in) {
		if folded[key] {
			p.Steps = append(p.Steps, Step{Key: key, Action: ActionSkip, Local: in.Local[key], Server: in.Server[key],
				Base: in.Base[key], Reason: "name differs only in case from another key"})
			if w := foldWarn[key]; w != "" {
				p.Warnings = append(p.Warnings, w)
			}
			continue
		}
		if step, warn, skip := skipStep(key, in); skip {
			p.Steps = append(p.Steps, step)
			if warn != "" {
				p.Warnings = append(p.Warnings, warn)
			}
			continue
		}
		p.Steps = append(p.Steps, decide(key, in))
	}
	applyRails(&p, in)
	return p
}

// unionKeys returns every key of the input's maps, sorted.
func unionKeys(in Input) []string {
	seen := map[string]bool{}
	for _, m := range []map[string]string{in.Local, in.Server, in.Base} {
		for k := range m {
			seen[k] = true
		}
	}
	for _, m := range []map[string]bool{in.Tombstones, in.LocalSkipped} {
		for k := range m {
			seen[k] = true
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// skipStep returns the Skip step for a key that must not be synced, with
// a warning ("" for a silent skip), and whether the key is skipped.
func skipStep(key string, in Input) (Step, string, bool) {
	step := Step{Key: key, Action: ActionSkip, Local: in.Local[key], Server: in.Server[key], Base: in.Base[key]}
	if err := protocol.ValidateKey(key); err != nil {
		step.Reason = "invalid key"
		return step, fmt.Sprintf("skipping %q: %v", key, err), true
	}
	if excludedKey(in.Exclude, key) {
		step.Reason = "in an excluded folder"
		if _, onServer := in.Server[key]; onServer {
			return step, fmt.Sprintf("skipping %q from the server: its folder is not synced here (personal memory leaves the team folder to the team sync)", key), true
		}
		return step, "", true
	}
	if in.LocalSkipped[key] {
		step.Reason = "local file not pushable"
		return step, "", true
	}
	if protocol.IsConflictCopy(key) {
		step.Reason = "conflict copy"
		if _, onServer := in.Server[key]; onServer {
			return step, fmt.Sprintf("skipping %q from the server: conflict copies are never synced", key), true
		}
		return step, "", true
	}
	return step, "", false
}

// decide applies the table of spec/agent.md §2 to one valid key.
func decide(key string, in Input) Step {
	l, s, b := in.Local[key], in.Server[key], in.Base[key]
	st := Step{Key: key, Local: l, Server: s, Base: b}
	switch {
	case l == s:
		st.Action = ActionInSync
	case b == "" && l != "" && in.OldCopies[key] && s != "":
		st.Action, st.Reason = ActionWriteLocal, "an old copy of a key the server changed since"
	case b == "" && l != "" && in.OldCopies[key] && in.Tombstones[key]:
		st.Action, st.Reason = ActionDeleteLocal, "an old copy of a key the server deleted since"
	case b == "":
		st.Action = decideDiffering(l, s, ActionWriteLocal, ActionPush)
	case l == b:
		st.Action, st.Reason = decideServerChanged(s, in.Tombstones[key], in.ServerLost)
	case s == b:
		st.Action = decideLocalChanged(l)
	default:
		st.Action = decideDiffering(l, s, ActionRestore, ActionResurrect)
	}
	return st
}

// decideServerChanged decides l = b ≠ s. A key absent from the server
// without a tombstone was deleted there (the tombstone purged since), unless
// the server lost its data.
func decideServerChanged(s string, tombstone, serverLost bool) (Action, string) {
	switch {
	case s != "":
		return ActionWriteLocal, ""
	case tombstone || !serverLost:
		return ActionDeleteLocal, ""
	default:
		return ActionPush, "missing on the server"
	}
}

// decideLocalChanged decides s = b ≠ l.
func decideLocalChanged(l string) Action {
	if l == "" {
		return ActionPushDelete
	}
	return ActionPush
}

// decideDiffering decides l ≠ s when l = b and s = b are both false: the
// side that lacks the key gets the other's content, and two contents are
// merged. Without a base (whenNoLocal = ActionWriteLocal, whenNoServer =
// ActionPush) nothing is ever deleted, which makes a lost journal harmless;
// with one, the edit beats the deletion (ActionRestore, ActionResurrect).
func decideDiffering(l, s string, whenNoLocal, whenNoServer Action) Action {
	switch {
	case l == "":
		return whenNoLocal
	case s == "":
		return whenNoServer
	default:
		return ActionMerge
	}
}

// Keys returns the keys of the plan's steps with action a, in key order.
func (p Plan) Keys(a Action) []string {
	var keys []string
	for _, st := range p.Steps {
		if st.Action == a {
			keys = append(keys, st.Key)
		}
	}
	return keys
}
