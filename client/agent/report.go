package agent

import (
	"fmt"
	"slices"
)

// Report is what one engine cycle did, for the user or for --json output
// (spec/cli.md). Keys are slash-separated paths relative to the team folder.
type Report struct {
	// Pulled are keys written locally from the server (merges included).
	Pulled []string `json:"pulled"`
	// Pushed are keys uploaded.
	Pushed []string `json:"pushed"`
	// Deleted are keys deleted locally or soft-deleted on the server.
	Deleted []string `json:"deleted"`
	// Conflicts are the conflict copies written.
	Conflicts []string `json:"conflicts"`
	// PendingPull are keys the server changed that a push-only cycle left
	// alone (neither written locally nor pushed): a pull or sync takes them.
	PendingPull []string `json:"pendingPull"`
	// Skipped are files that were not pushed, with the reason.
	Skipped []Skip `json:"skipped"`
	// Warnings are other things the user should know (safety rails, keys
	// skipped from the server, entries left out by the server's limit).
	Warnings []string `json:"warnings"`
	// Notes are what a one-shot command did that a person should read but
	// that needs no action (how seed merged an index, which keys --prune
	// kept); they do not make a run incomplete.
	Notes []string `json:"notes,omitempty"`
	// Block says which checkouts' CLAUDE.local.md the team memory block
	// was left out of, and why (once per checkout and reason). It does not
	// make a sync incomplete: the team folder itself is in step.
	Block []string `json:"block"`
	// Held are the local changes kept from the server while a
	// consolidation rewrites the memory folder; the cycle after it ends
	// pushes them.
	Held []string `json:"held,omitempty"`
	// Awaiting are the local changes held in an open proposal of a
	// repository that reviews writes; Rejections the proposals decided
	// against this cycle, each key's text kept in a copy.
	Awaiting   []Awaiting  `json:"awaiting,omitempty"`
	Rejections []Rejection `json:"rejections,omitempty"`
	// Consolidation is the consolidation this cycle held changes for
	// (Ended empty) or whose end it pushed (Ended says why it ended).
	Consolidation *Consolidation `json:"consolidation,omitempty"`
	// Token says that the token expires soon and how to get a new one
	// (once per expiry, from ExpiryWarning ahead). It does not make a sync
	// incomplete.
	Token string `json:"token,omitempty"`
	// Version and Checksum describe the server's dataset after the cycle.
	Version  int64  `json:"version"`
	Checksum string `json:"checksum"`
	// Err is the cycle's error, nil on success.
	Err error `json:"-"`

	// refusals are the Skipped entries the server's answers gave during
	// the cycle: a replan (after a 412) reports the folder afresh but
	// keeps these, which no later answer repeats.
	refusals []Skip
}

// refusal adds s, learned from the server, to the skipped files, once.
func (r *Report) refusal(s Skip) {
	if !slices.Contains(r.refusals, s) {
		r.refusals = append(r.refusals, s)
		r.Skipped = append(r.Skipped, s)
	}
}

// Skip is one file that was not pushed, and why.
type Skip struct {
	// Path is the file's slash-separated path relative to the team folder.
	Path string `json:"path"`
	// Reason says why, for a person: the rule broken and its particulars
	// (never a credential's text).
	Reason string `json:"reason"`
}

// String formats the skip as one line: `skipping "path": reason`, the path
// quoted so that control characters cannot reach a terminal.
func (s Skip) String() string { return fmt.Sprintf("skipping %q: %s", s.Path, s.Reason) }

// Empty reports whether nothing moved and nothing needs saying.
func (r *Report) Empty() bool {
	return len(r.Pulled)+len(r.Pushed)+len(r.Deleted)+len(r.Conflicts)+len(r.PendingPull)+len(r.Skipped)+len(r.Warnings)+len(r.Block)+len(r.Held)+len(r.Rejections)+len(r.Awaiting) == 0 &&
		r.Consolidation == nil && r.Token == "" && r.Err == nil
}
