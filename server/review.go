package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ReviewPolicy is what of a repository's writes waits for a reviewer, set
// by its admins (who review).
type ReviewPolicy string

// Review policies.
const (
	// ReviewOff applies every write at once (the default).
	ReviewOff ReviewPolicy = "off"
	// ReviewChanges applies new keys and added index lines at once; edits
	// of existing keys, deletes and removed index lines become a proposal.
	ReviewChanges ReviewPolicy = "changes"
	// ReviewAll makes every write of someone who cannot review a proposal.
	ReviewAll ReviewPolicy = "all"
)

// ParseReviewPolicy parses "off", "changes" or "all".
func ParseReviewPolicy(s string) (ReviewPolicy, error) {
	switch p := ReviewPolicy(s); p {
	case ReviewOff, ReviewChanges, ReviewAll:
		return p, nil
	}
	return "", invalidf(ReasonInvalidParameter, "review policy %.40q is not one of off, changes, all", s)
}

// ProposalState is where a proposal stands.
type ProposalState string

// Proposal states: open until a reviewer approves or rejects it or its
// author withdraws it; the three others are final.
const (
	ProposalOpen      ProposalState = "open"
	ProposalApproved  ProposalState = "approved"
	ProposalRejected  ProposalState = "rejected"
	ProposalWithdrawn ProposalState = "withdrawn"
)

// ParseProposalState parses a state, or "all" (returned as "").
func ParseProposalState(s string) (ProposalState, error) {
	switch st := ProposalState(s); st {
	case ProposalOpen, ProposalApproved, ProposalRejected, ProposalWithdrawn:
		return st, nil
	case "all":
		return "", nil
	}
	return "", invalidf(ReasonInvalidParameter, "state %.40q is not one of open, approved, rejected, withdrawn, all", s)
}

// ProposedChange is one key of a proposal: the content proposed, or its
// delete, and the text it replaces.
type ProposedChange struct {
	Key      string
	Delete   bool
	Content  string // "" for a delete
	Checksum string // of Content; for a delete, of Base
	// Base is the key's live text when it was proposed (BaseAbsent: none):
	// an approval after the key moved merges from it.
	Base       string
	BaseAbsent bool
	// Note says why the change is proposed ("folded into pool.md"), ""
	// when its author said nothing; at most MaxNoteBytes of text.
	Note string
}

// Op is the revision the change writes: a put, or a delete.
func (c ProposedChange) Op() Op {
	if c.Delete {
		return OpDelete
	}
	return OpPut
}

// Proposal is a change set waiting for, or decided by, a reviewer.
type Proposal struct {
	ID     int64
	Repo   string
	State  ProposalState
	Author string
	// Provenance is the author's, of the push that last amended the
	// proposal; an approval writes with it (and ApprovedBy, Proposal set).
	Provenance     Provenance
	BaseVersion    int64 // the repository's version the last amendment was made against
	CreatedAt      time.Time
	UpdatedAt      time.Time
	Changes        []ProposedChange // sorted by key; Content and Base filled by Store.Proposal only
	DecidedBy      string
	DecidedAt      time.Time // zero while open
	Comment        string
	AppliedVersion int64 // the version an approval wrote; 0 when it changed nothing or is not approved
}

// Keys returns the keys the proposal changes, sorted.
func (p Proposal) Keys() []string {
	keys := make([]string, len(p.Changes))
	for i, c := range p.Changes {
		keys[i] = c.Key
	}
	return keys
}

// ProposalDraft is a change set to propose (Store.SaveProposal).
type ProposalDraft struct {
	Repo        string
	BaseVersion int64
	Changes     []ProposedChange // sorted by key, unique, checked by the Service
	Provenance  Provenance       // the author's; Subject is the author
	At          time.Time
	// Amend folds the draft into the author's newest open proposal of the
	// repository that is not Whole, when there is one: each key's change
	// replaces the one it held (keeping the base it was first proposed
	// against). Without it the draft is always a new proposal.
	Amend bool
	// Whole marks a change set proposed as a whole (Service.Propose: a
	// tidy, a tool's): no later draft with Amend folds into it, so an
	// author's pushes never mix into it. A whole draft whose changes are
	// those of an open whole proposal of the repository made over the
	// same BaseVersion (SameChanges; among the newest MaxSameWhole) is
	// that proposal, unchanged: a replayed request, or the same tool on
	// another replica, makes no second one.
	Whole bool
}

// ProposalDecision moves a proposal from one state to another.
type ProposalDecision struct {
	ID             int64
	From, To       ProposalState
	By             string
	At             time.Time // zero when To is open
	Comment        string
	AppliedVersion int64
}

// ProposalQuery selects proposals to list, newest first.
type ProposalQuery struct {
	// Prefixes keeps proposals of the repositories whose slug starts with
	// one of them; nil keeps every one. Repo, when set, keeps that one.
	Prefixes []string
	Repo     string
	State    ProposalState // "" for every state
	Author   string        // "" for every author
	Before   int64         // > 0: only ids below it
	Limit    int           // > 0
}

// ReviewStore keeps repositories' review policies and their proposals.
// Both stores implement it; every method is safe for concurrent use, by
// several processes sharing a Postgres too.
type ReviewStore interface {
	// ReviewPolicy returns repo's policy; ReviewOff when none was set.
	// It is the committed one: a policy set through any process sharing
	// the store is read once SetReviewPolicy returned.
	ReviewPolicy(ctx context.Context, repo string) (ReviewPolicy, error)
	// SetReviewPolicy records repo's policy. A write carrying a
	// Write.Policy that commits after it is checked against it (the
	// store's Apply), whatever process it runs in.
	SetReviewPolicy(ctx context.Context, repo string, p ReviewPolicy, at time.Time) error
	// SaveProposal stores d as a new open proposal, or with d.Amend folds
	// it into the author's open one (see ProposalDraft.Amend), or with
	// d.Whole finds the open one holding it (see ProposalDraft.Whole), in
	// one transaction, atomically across processes. changed is false when
	// an open proposal already held every change of d as it is (nothing
	// was written).
	SaveProposal(ctx context.Context, d ProposalDraft) (p Proposal, changed bool, err error)
	// Proposal returns one proposal with its changes' content and base.
	// Errors: ErrNotFound.
	Proposal(ctx context.Context, id int64) (Proposal, error)
	// Proposals returns the proposals q selects, newest first, with their
	// changes' keys (not content).
	Proposals(ctx context.Context, q ProposalQuery) ([]Proposal, error)
	// DecideProposal moves the proposal d.ID from d.From to d.To with d's
	// fields, atomically: a *ProposalStateError when it is not in d.From
	// (decided meanwhile: another reviewer, a replayed request), and
	// ErrNotFound when there is no such proposal.
	DecideProposal(ctx context.Context, d ProposalDecision) (Proposal, error)
	// OpenProposals counts the open proposals of each repository that has
	// any.
	OpenProposals(ctx context.Context) (map[string]int, error)
}

// ErrConflict is a request that cannot apply to the current state of what
// it names: a proposal already decided, an approval whose keys moved in a
// way that cannot merge.
var ErrConflict = errors.New("conflict")

// PolicyChangedError is a write (Write.Policy) refused by the store because
// its repository's review policy is no longer the one the write was cut
// by: Policy is the one the store found. Service.Put cuts the write again
// by it; a client never sees it.
type PolicyChangedError struct {
	Repo   string
	Policy ReviewPolicy
}

func (e *PolicyChangedError) Error() string {
	return fmt.Sprintf("the review policy of %s changed to %q since the write was cut", e.Repo, e.Policy)
}

// ProposalStateError is a decision on a proposal that is no longer open.
type ProposalStateError struct {
	ID    int64
	State ProposalState
}

func (e *ProposalStateError) Error() string {
	return fmt.Sprintf("proposal #%d is %s, no longer open", e.ID, e.State)
}

func (e *ProposalStateError) Unwrap() error { return ErrConflict }

// MergeConflictError is an approval of a proposal whose keys changed since
// it was made in ways that do not merge.
type MergeConflictError struct {
	ID   int64
	Keys []string
}

func (e *MergeConflictError) Error() string {
	return fmt.Sprintf("proposal #%d: %s changed since it was proposed and does not merge; ask its author to propose again",
		e.ID, strings.Join(e.Keys, ", "))
}

func (e *MergeConflictError) Unwrap() error { return ErrConflict }

// SameChanges reports whether two proposals' changes change the same keys
// the same way (a put of the same content, or a delete), in any order;
// bases and notes aside.
func SameChanges(a, b []ProposedChange) bool {
	if len(a) != len(b) {
		return false
	}
	byKey := make(map[string]ProposedChange, len(a))
	for _, c := range a {
		byKey[c.Key] = c
	}
	for _, c := range b {
		o, ok := byKey[c.Key]
		if !ok || o.Delete != c.Delete || o.Checksum != c.Checksum {
			return false
		}
	}
	return true
}

// SameProposal returns the first of ids whose changes, as read reads
// them, are draft's (SameChanges); 0 when none is. Errors: read's.
func SameProposal(ids []int64, draft []ProposedChange, read func(id int64) ([]ProposedChange, error)) (int64, error) {
	for _, id := range ids {
		held, err := read(id)
		if err != nil {
			return 0, err
		}
		if SameChanges(held, draft) {
			return id, nil
		}
	}
	return 0, nil
}

// MaxSameWhole bounds the open whole proposals of a repository over one
// version a store compares a new whole draft with.
const MaxSameWhole = 20

// AmendChanges returns the changes of draft that an open proposal holding
// held does not already hold as they are, each keeping the base of the
// change of its key it replaces (the text first proposed against): what a
// store writes when it folds a draft into that proposal. None means the
// draft changes nothing.
func AmendChanges(held, draft []ProposedChange) []ProposedChange {
	byKey := make(map[string]ProposedChange, len(held))
	for _, c := range held {
		byKey[c.Key] = c
	}
	var out []ProposedChange
	for _, c := range draft {
		old, ok := byKey[c.Key]
		if ok && old.Delete == c.Delete && old.Checksum == c.Checksum {
			continue
		}
		if ok {
			c.Base, c.BaseAbsent = old.Base, old.BaseAbsent
		}
		out = append(out, c)
	}
	return out
}
