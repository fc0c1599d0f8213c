package mcptools

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListProposalsInput is the input of list_proposals.
type ListProposalsInput struct {
	Repo  string `json:"repo,omitempty" jsonschema:"repository slug; absent: every repository you can read"`
	State string `json:"state,omitempty" jsonschema:"open (the default), approved, rejected, withdrawn or all"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many, newest first (default 50)"`
}

func (in ListProposalsInput) target() (string, string) { return in.Repo, "" }

// ListProposalsOutput is the output of list_proposals.
type ListProposalsOutput struct {
	Proposals []Proposal `json:"proposals"`
}

// ReviewInput is the input of review_proposal.
type ReviewInput struct {
	ID       int64  `json:"id" jsonschema:"the proposal's id"`
	Decision string `json:"decision" jsonschema:"approve or reject"`
	Comment  string `json:"comment,omitempty" jsonschema:"for its author; required to reject"`
}

func (in ReviewInput) target() (string, string) { return "", "" }

func (t *tools) addReview(s *mcp.Server) {
	add(t, s, &mcp.Tool{Name: "list_proposals", Annotations: readOnly,
		Description: "List the changes to team memory that await review (or were reviewed), newest first: who proposed them and which keys they change. " +
			"In a repository that reviews writes, write_memory and delete_memory make such a proposal."}, t.listProposals)
	add(t, s, &mcp.Tool{Name: "review_proposal", Annotations: sideEffects("Approve or reject a proposed memory change", true, false),
		Description: "Approve (side effect: the change reaches every teammate's assistant) or reject a proposed change to team memory; " +
			"reviewers (admins of the repository) only. A rejection needs a comment for its author."}, t.review)
}

func (t *tools) listProposals(ctx context.Context, in ListProposalsInput) (ListProposalsOutput, error) {
	state := in.State
	if state == "" {
		state = "open"
	}
	limit := in.Limit
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	props, err := t.b.Proposals(ctx, in.Repo, state, limit)
	if err != nil {
		return ListProposalsOutput{}, err
	}
	if props == nil {
		props = []Proposal{}
	}
	return ListProposalsOutput{Proposals: props}, nil
}

func (t *tools) review(ctx context.Context, in ReviewInput) (Proposal, error) {
	if in.Decision != "approve" && in.Decision != "reject" {
		return Proposal{}, refusef("decision %q is not approve or reject", short(in.Decision))
	}
	if in.ID <= 0 {
		return Proposal{}, refusef("id %d is not a proposal's id (see list_proposals)", in.ID)
	}
	p, err := t.b.Review(ctx, in.ID, in.Decision, in.Comment)
	if err != nil {
		return Proposal{}, fmt.Errorf("%s #%d: %w", in.Decision, in.ID, err)
	}
	return p, nil
}
