package health

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/teammem/teammem/server"
)

// Client is what a tidy proposal's provenance names as its client,
// followed by the door it was asked through.
const Client = "teammem tidy"

// maxReplayLookup bounds the open proposals of a repository a tidy looks
// through for its replay.
const maxReplayLookup = 100

// ProposalID is a proposal's id as tidy answers it.
func ProposalID(id int64) string { return strconv.FormatInt(id, 10) }

// Replay returns the id of an open tidy proposal of plan's repository
// holding plan as it is: made against the same version, changing the
// same keys the same way. A resubmitted form, a retried POST or a second
// asker then gets that proposal instead of a second one. It reads the
// store, so it holds across replicas sharing one (two replicas asked at
// the same instant may still each propose). "" when there is none.
// Errors: server.ErrNotImplemented when the store keeps no proposals,
// the store's.
func Replay(ctx context.Context, svc *server.Service, p server.Principal, plan TidyPlan) (string, error) {
	open, _, err := svc.Proposals(ctx, p, server.ProposalsRequest{Repo: plan.Repo, State: server.ProposalOpen, Limit: maxReplayLookup})
	if errors.Is(err, server.ErrUnavailable) {
		return "", fmt.Errorf("tidy makes a proposal for review, and this server keeps no proposals: "+
			"read the plan with dry_run=1 or `teammem-server tidy --dry-run`: %w", server.ErrNotImplemented)
	}
	if err != nil {
		return "", err
	}
	keys := make([]string, len(plan.Changes))
	for i, c := range plan.Changes {
		keys[i] = c.Key
	}
	for _, prop := range open {
		if prop.Provenance.Surface != server.SurfaceConsolidation || prop.BaseVersion != plan.Base || !slices.Equal(prop.Keys(), keys) {
			continue
		}
		full, err := svc.Proposal(ctx, p, prop.ID)
		if err != nil {
			return "", err
		}
		if full.State == server.ProposalOpen && holds(full.Proposal, plan) {
			return ProposalID(prop.ID), nil
		}
	}
	return "", nil
}

// holds reports whether prop's changes are plan's, key by key.
func holds(prop server.Proposal, plan TidyPlan) bool {
	if len(prop.Changes) != len(plan.Changes) {
		return false
	}
	for i, c := range plan.Changes {
		pc := prop.Changes[i]
		if pc.Key != c.Key || pc.Delete != c.Delete || !c.Delete && pc.Content != c.Content {
			return false
		}
	}
	return true
}
