package mcprest

import (
	"context"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/mcptools"
)

// Proposals is GET /api/v1/proposals.
func (b *Backend) Proposals(ctx context.Context, repo, state string, limit int) ([]mcptools.Proposal, error) {
	res, err := b.c.Proposals(ctx, client.ProposalOptions{Repo: repo, State: state, Limit: limit})
	if err != nil {
		return nil, mark(err)
	}
	out := make([]mcptools.Proposal, len(res.Proposals))
	for i, p := range res.Proposals {
		out[i] = toolProposal(p)
	}
	return out, nil
}

// Review is POST /api/v1/proposals/{id}/approve or reject.
func (b *Backend) Review(ctx context.Context, id int64, decision, comment string) (mcptools.Proposal, error) {
	p, err := b.c.Decide(client.WithSurface(ctx, "mcp"), id, decision, comment)
	if err != nil {
		return mcptools.Proposal{}, mark(err)
	}
	return toolProposal(*p), nil
}

func toolProposal(p api.Proposal) mcptools.Proposal {
	return mcptools.Proposal{ID: p.ID, Repo: p.Repo, State: p.State, Author: p.Author, CreatedAt: p.CreatedAt,
		Keys: p.Keys, Deleted: p.Deleted, DecidedBy: p.DecidedBy, Comment: p.Comment}
}
