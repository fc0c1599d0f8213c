package webui

import (
	"context"
	"errors"

	"github.com/teammem/teammem/server"
)

// ownProposal is one of the caller's open proposals, as the pages of its
// repository mark it: on the repository's page with its keys, on the page
// of each entry it would change.
type ownProposal struct {
	ID   int64
	Keys []string
}

// ownKey is what an entry's page says of the caller's open proposal that
// holds its key.
type ownKey struct {
	ID     int64
	Delete bool
}

// ownProposals returns the caller's open proposals of repo, newest first:
// none when the server keeps no proposals.
func (u *UI) ownProposals(ctx context.Context, p server.Principal, repo string) ([]server.Proposal, error) {
	props, _, err := u.svc.Proposals(ctx, p, server.ProposalsRequest{Repo: repo, State: server.ProposalOpen,
		Author: p.Subject, Limit: server.MaxProposalsPage})
	if errors.Is(err, server.ErrUnavailable) {
		return nil, nil
	}
	return props, err
}

// ownProposalsOf is the repository page's view of props.
func ownProposalsOf(props []server.Proposal) []ownProposal {
	var out []ownProposal
	for _, pr := range props {
		out = append(out, ownProposal{ID: pr.ID, Keys: pr.Keys()})
	}
	return out
}

// ownKeyOf returns the newest of props that holds key, nil when none does.
func ownKeyOf(props []server.Proposal, key string) *ownKey {
	for _, pr := range props {
		for _, c := range pr.Changes {
			if c.Key == key {
				return &ownKey{ID: pr.ID, Delete: c.Delete}
			}
		}
	}
	return nil
}
