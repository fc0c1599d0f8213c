package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/teammem/teammem/api"
)

// Policy reads a repository's review policy (GET /api/v1/policy).
func (c *Client) Policy(ctx context.Context, repo string) (*api.Policy, error) {
	q, err := repoQuery(repo)
	if err != nil {
		return nil, fmt.Errorf("get review policy: %w", err)
	}
	var p api.Policy
	if _, err := c.do(ctx, request{method: http.MethodGet, path: api.PathPolicy, query: q, auth: true}, &p); err != nil {
		return nil, fmt.Errorf("get review policy of %s: %w", repo, err)
	}
	return &p, nil
}

// SetPolicy sets a repository's review policy, "off", "changes" or "all"
// (PUT /api/v1/policy; its admins only).
func (c *Client) SetPolicy(ctx context.Context, repo, review string) (*api.Policy, error) {
	q, err := repoQuery(repo)
	if err != nil {
		return nil, fmt.Errorf("set review policy: %w", err)
	}
	body, _ := json.Marshal(api.Policy{Review: review})
	var p api.Policy
	if _, err := c.do(ctx, request{method: http.MethodPut, path: api.PathPolicy, query: q, body: body, auth: true}, &p); err != nil {
		return nil, fmt.Errorf("set review policy of %s: %w", repo, err)
	}
	return &p, nil
}

// ProposalOptions select proposals to list.
type ProposalOptions struct {
	Repo   string // "": every repository the token can read
	State  string // "": every state
	Author string
	Limit  int
	Before int64
	// Mine keeps the proposals of the token's own subject.
	Mine bool
}

// Proposals lists proposals newest first (GET /api/v1/proposals).
func (c *Client) Proposals(ctx context.Context, o ProposalOptions) (*api.Proposals, error) {
	q := url.Values{}
	for k, v := range map[string]string{"repo": o.Repo, "state": o.State, "author": o.Author} {
		if v != "" {
			q.Set(k, v)
		}
	}
	HistoryOptions{Limit: o.Limit, Before: o.Before}.set(q)
	if o.Mine {
		q.Set("mine", "1")
	}
	var out api.Proposals
	if _, err := c.do(ctx, request{method: http.MethodGet, path: api.PathProposals, query: q, auth: true}, &out); err != nil {
		return nil, fmt.Errorf("list proposals: %w", err)
	}
	return &out, nil
}

// Proposal reads one proposal with its changes and diffs (GET
// /api/v1/proposals/{id}). Errors: ErrNotFound for an absent one or one of
// a repository the token cannot read.
func (c *Client) Proposal(ctx context.Context, id int64) (*api.ProposalDetail, error) {
	var out api.ProposalDetail
	path := api.PathProposals + "/" + strconv.FormatInt(id, 10)
	if _, err := c.do(ctx, request{method: http.MethodGet, path: path, auth: true}, &out); err != nil {
		return nil, fmt.Errorf("read proposal #%d: %w", id, err)
	}
	return &out, nil
}

// Decide approves, rejects or withdraws a proposal (POST
// /api/v1/proposals/{id}/{decision}). Errors: ErrConflict when it was
// decided already or its keys moved and do not merge, ErrForbidden.
func (c *Client) Decide(ctx context.Context, id int64, decision, comment string) (*api.Proposal, error) {
	body, _ := json.Marshal(api.DecisionRequest{Comment: comment})
	var out api.Proposal
	path := api.PathProposals + "/" + strconv.FormatInt(id, 10) + "/" + url.PathEscape(decision)
	if _, err := c.do(ctx, request{method: http.MethodPost, path: path, body: body, auth: true}, &out); err != nil {
		return nil, fmt.Errorf("%s proposal #%d: %w", decision, id, err)
	}
	return &out, nil
}
