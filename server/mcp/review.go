package mcp

import (
	"context"
	"time"

	"github.com/teammem/teammem/mcptools"
	"github.com/teammem/teammem/server"
)

// Proposals lists proposals over the Service (mcptools.Backend).
func (b *backend) Proposals(ctx context.Context, repo, state string, limit int) ([]mcptools.Proposal, error) {
	req := server.ProposalsRequest{Repo: repo, Limit: limit}
	var err error
	if req.State, err = server.ParseProposalState(state); err != nil {
		return nil, b.fail(ctx, "list proposals", err)
	}
	props, _, err := b.svc.Proposals(ctx, b.principal(ctx), req)
	if err != nil {
		return nil, b.fail(ctx, "list proposals", err)
	}
	out := make([]mcptools.Proposal, len(props))
	for i, p := range props {
		out[i] = toolProposal(p)
	}
	return out, nil
}

// Review decides a proposal over the Service (mcptools.Backend).
func (b *backend) Review(ctx context.Context, id int64, decision, comment string) (mcptools.Proposal, error) {
	d, err := server.ParseDecision(decision)
	if err != nil {
		return mcptools.Proposal{}, b.fail(ctx, "review", err)
	}
	p, err := b.svc.Decide(ctx, b.principal(ctx), id, d, comment, server.Provenance{Surface: server.SurfaceMCP, Client: clientOf(ctx)})
	if err != nil {
		return mcptools.Proposal{}, b.fail(ctx, "review", err)
	}
	return toolProposal(p), nil
}

// toolProposal is a proposal as the tools show it.
func toolProposal(p server.Proposal) mcptools.Proposal {
	out := mcptools.Proposal{ID: p.ID, Repo: p.Repo, State: string(p.State), Author: p.Author,
		CreatedAt: p.CreatedAt.UTC().Format(time.RFC3339), Keys: p.Keys(), DecidedBy: p.DecidedBy, Comment: p.Comment}
	for _, c := range p.Changes {
		if c.Delete {
			out.Deleted = append(out.Deleted, c.Key)
		}
	}
	return out
}
