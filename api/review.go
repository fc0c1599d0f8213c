package api

// Paths of review.
const (
	PathPolicy    = "/api/v1/policy"
	PathProposals = "/api/v1/proposals"
)

// HeaderProposal names, on the answer to a PUT under review, the open
// proposal that holds what did not land.
const HeaderProposal = "Teammem-Proposal"

// Review policies (Policy.Review).
const (
	ReviewOff     = "off"
	ReviewChanges = "changes"
	ReviewAll     = "all"
)

// Policy is a repository's review policy: GET and PUT /api/v1/policy?repo=R.
type Policy struct {
	Repo   string `json:"repo"`
	Review string `json:"review"`
}

// Proposal states.
const (
	ProposalOpen      = "open"
	ProposalApproved  = "approved"
	ProposalRejected  = "rejected"
	ProposalWithdrawn = "withdrawn"
)

// Proposal is a change set waiting for, or decided by, a reviewer. Times
// are RFC 3339 UTC with milliseconds; DecidedBy, DecidedAt and Comment are
// empty while it is open.
type Proposal struct {
	ID          int64    `json:"id"`
	Repo        string   `json:"repo"`
	State       string   `json:"state"`
	Author      string   `json:"author"`
	CreatedAt   string   `json:"created_at"`
	UpdatedAt   string   `json:"updated_at"`
	BaseVersion int64    `json:"base_version"`
	Keys        []string `json:"keys"`
	// Deleted lists the keys of Keys the proposal deletes.
	Deleted   []string `json:"deleted,omitempty"`
	DecidedBy string   `json:"decided_by"`
	DecidedAt string   `json:"decided_at"`
	Comment   string   `json:"comment"`
	// AppliedVersion is the version an approval wrote (absent when it
	// wrote nothing or is not approved).
	AppliedVersion int64 `json:"applied_version,omitempty"`
	// Provenance is the author's, of the push that last amended it.
	Provenance *Provenance `json:"provenance,omitempty"`
}

// Proposals is a page of proposals, newest first: GET /api/v1/proposals.
// Next, when not nil, is the before of the next page.
type Proposals struct {
	Proposals []Proposal `json:"proposals"`
	Next      *int64     `json:"next"`
}

// ProposalDetail is one proposal with each key's proposed content (null:
// a delete), its current text (null: absent now) and a unified diff from
// the current text to the proposed one: GET /api/v1/proposals/{id}.
type ProposalDetail struct {
	Proposal
	Changes []ProposalChange `json:"changes"`
	// CanReview tells whether the caller may approve or reject it,
	// CanWithdraw whether it may withdraw it.
	CanReview   bool `json:"can_review"`
	CanWithdraw bool `json:"can_withdraw"`
}

// ProposalChange is one key of a ProposalDetail.
type ProposalChange struct {
	Key     string  `json:"key"`
	Content *string `json:"content"`
	Current *string `json:"current"`
	Diff    string  `json:"diff"`
	// Note says why the change is proposed, when its author said (a
	// tidy's "folded into pool.md").
	Note string `json:"note,omitempty"`
}

// DecisionRequest is the body of POST /api/v1/proposals/{id}/approve,
// /reject (comment required) and /withdraw.
type DecisionRequest struct {
	Comment string `json:"comment,omitempty"`
}
