package server

import (
	"context"
	"fmt"
)

// ProposalsRequest is what a listing of proposals asks for.
type ProposalsRequest struct {
	Repo   string        // "": every repository the caller can read
	State  ProposalState // "": every state
	Author string        // "": every author
	Before int64         // > 0: only ids below it
	Limit  int           // 0: 100; at most MaxProposalsPage
}

// Proposals lists proposals newest first: of one repository p can read,
// or of every one. next is the Before of the next page, 0 when there is
// none. Errors: invalid repo or parameters, ErrForbidden (a named
// repository p cannot read), ErrUnavailable without a ReviewStore, the
// store's.
func (s *Service) Proposals(ctx context.Context, p Principal, r ProposalsRequest) (props []Proposal, next int64, err error) {
	rs, err := s.reviewStore()
	if err != nil {
		return nil, 0, err
	}
	if r.Before < 0 || r.Limit < 0 {
		return nil, 0, invalidf(ReasonInvalidParameter, "before and limit must not be negative")
	}
	limit := r.Limit
	if limit == 0 {
		limit = 100
	}
	limit = min(limit, MaxProposalsPage)
	q := ProposalQuery{State: r.State, Author: r.Author, Before: r.Before, Limit: limit + 1}
	if r.Repo != "" {
		if q.Repo, err = s.authorize(p, r.Repo, PermRead); err != nil {
			return nil, 0, err
		}
	} else {
		q.Prefixes = p.listPrefixes()
	}
	for len(props) <= limit {
		page, err := rs.Proposals(ctx, q)
		if err != nil {
			return nil, 0, fmt.Errorf("list proposals: %w", err)
		}
		for _, prop := range page {
			if p.Can(prop.Repo, PermRead) {
				props = append(props, prop)
			}
		}
		if len(page) < q.Limit {
			break
		}
		q.Before = page[len(page)-1].ID
	}
	if len(props) > limit {
		props, next = props[:limit], props[limit-1].ID
	}
	return props, next, nil
}

// ProposalView is one proposal with each key's current text.
type ProposalView struct {
	Proposal
	// Current holds each changed key's live text now; a key absent now is
	// left out.
	Current map[string]string
	// CanReview tells whether the caller may approve or reject it, and
	// CanWithdraw whether it may withdraw it.
	CanReview, CanWithdraw bool
}

// Proposal returns one proposal with its changes and the current text of
// each key. A proposal of a repository p cannot read is not found, as an
// absent one. Errors: ErrNotFound, ErrUnavailable, the store's.
func (s *Service) Proposal(ctx context.Context, p Principal, id int64) (ProposalView, error) {
	prop, err := s.readableProposal(ctx, p, id)
	if err != nil {
		return ProposalView{}, err
	}
	v := ProposalView{Proposal: prop, Current: map[string]string{},
		CanReview:   prop.State == ProposalOpen && canReview(p, prop.Repo),
		CanWithdraw: prop.State == ProposalOpen && p.Subject == prop.Author}
	for _, c := range prop.Changes {
		cur, err := s.currentText(ctx, prop.Repo, c.Key)
		if err != nil {
			return ProposalView{}, err
		}
		if !cur.absent {
			v.Current[c.Key] = cur.text
		}
	}
	return v, nil
}

// readableProposal reads a proposal p may read.
func (s *Service) readableProposal(ctx context.Context, p Principal, id int64) (Proposal, error) {
	rs, err := s.reviewStore()
	if err != nil {
		return Proposal{}, err
	}
	prop, err := rs.Proposal(ctx, id)
	if err == nil && !p.Can(prop.Repo, PermRead) {
		err = ErrNotFound
	}
	if err != nil {
		return Proposal{}, fmt.Errorf("proposal #%d: %w", id, err)
	}
	return prop, nil
}

// canReview reports whether p may approve or reject repo's proposals: an
// admin of it whose token is not propose-only.
func canReview(p Principal, repo string) bool {
	return p.Can(repo, PermAdmin) && !p.ProposeOnly
}

// ReviewCount is how many open proposals p may decide, across every
// repository. Errors: ErrUnavailable without a ReviewStore, the store's.
func (s *Service) ReviewCount(ctx context.Context, p Principal) (int, error) {
	rs, err := s.reviewStore()
	if err != nil {
		return 0, err
	}
	counts, err := rs.OpenProposals(ctx)
	if err != nil {
		return 0, fmt.Errorf("count open proposals: %w", err)
	}
	n := 0
	for repo, c := range counts {
		if canReview(p, repo) {
			n += c
		}
	}
	return n, nil
}
