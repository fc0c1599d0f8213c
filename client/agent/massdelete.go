package agent

import "fmt"

// DefaultMaxDeleteShare is the largest share of a repo's live entries one
// push may soft-delete unless mass deletion is allowed.
const DefaultMaxDeleteShare = 0.5

// minMassDelete is the number of deletions from which the share rail applies.
const minMassDelete = 3

// Rails tunes the safety rails of Reconcile (spec/agent.md §2):
//
//   - when the team folder is unavailable (Input.LocalUnavailable) or holds
//     no candidate at all while the base lists entries, no deletion is
//     pushed;
//   - when a plan would soft-delete 3 or more keys and more than
//     MaxDeleteShare of the server's live entries, no deletion is pushed
//     unless AllowMassDelete;
//   - when the server lacks 3 or more keys the journal lists, unchanged
//     locally, without a tombstone (deleted longer ago than the server
//     keeps tombstones, or lost by the server), and they are more than
//     MaxDeleteShare of the journal's keys, no local file is deleted
//     unless AllowMassDelete: those files may be the only copies left.
//
// Withheld deletions become ActionHold steps and a warning.
type Rails struct {
	// AllowMassDelete lifts the share rail (--allow-mass-delete).
	AllowMassDelete bool
	// MaxDeleteShare is the share of live entries; 0 means
	// DefaultMaxDeleteShare.
	MaxDeleteShare float64
}

// share returns the effective maximum share.
func (r Rails) share() float64 {
	if r.MaxDeleteShare <= 0 {
		return DefaultMaxDeleteShare
	}
	return r.MaxDeleteShare
}

// applyRails turns withheld deletions of p into ActionHold steps.
func applyRails(p *Plan, in Input) {
	holdSilentServerDeletes(p, in)
	n := len(p.Keys(ActionPushDelete))
	if n == 0 {
		return
	}
	if in.LocalUnavailable || (len(in.Local) == 0 && len(in.Base) > 0) {
		hold(p, "team folder missing, unreadable or empty")
		p.Warnings = append(p.Warnings, fmt.Sprintf(
			"not deleting %s on the server: the team folder is missing, unreadable or empty", Plural(n, "key", "keys")))
		return
	}
	live := len(in.Server)
	if !in.Rails.AllowMassDelete && n >= minMassDelete && float64(n) > in.Rails.share()*float64(live) {
		hold(p, "mass deletion")
		p.Warnings = append(p.Warnings, fmt.Sprintf(
			"not deleting %d of %d keys on the server in one push (over %.0f%%); use --allow-mass-delete if this is intended",
			n, live, 100*in.Rails.share()))
	}
}

// holdSilentServerDeletes applies the rail on local deletions of keys
// the server lacks without a tombstone.
func holdSilentServerDeletes(p *Plan, in Input) {
	n := 0
	for _, st := range p.Steps {
		if st.Action == ActionDeleteLocal && !in.Tombstones[st.Key] {
			n++
		}
	}
	if in.Rails.AllowMassDelete || n < minMassDelete || float64(n) <= in.Rails.share()*float64(len(in.Base)) {
		return
	}
	for i, st := range p.Steps {
		if st.Action == ActionDeleteLocal && !in.Tombstones[st.Key] {
			p.Steps[i].Action, p.Steps[i].Reason = ActionHold, "missing on the server without a tombstone"
		}
	}
	p.Warnings = append(p.Warnings, fmt.Sprintf(
		"not deleting %d of %d local files the server lacks without a record of their deletion: if the server lost data, run `sync --reseed`; if they were deleted long ago, run `teammem-agent sync --allow-mass-delete`",
		n, len(in.Base)))
}

// hold turns every ActionPushDelete step of p into ActionHold.
func hold(p *Plan, reason string) {
	for i := range p.Steps {
		if p.Steps[i].Action == ActionPushDelete {
			p.Steps[i].Action = ActionHold
			p.Steps[i].Reason = reason
		}
	}
}
