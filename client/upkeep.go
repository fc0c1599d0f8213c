package client

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/teammem/teammem/api"
)

// Health reads a repository's health: its findings at its version.
func (c *Client) Health(ctx context.Context, repo string) (*api.HealthReport, error) {
	q, err := repoQuery(repo)
	if err != nil {
		return nil, fmt.Errorf("check health: %w", err)
	}
	var out api.HealthReport
	r := request{method: http.MethodGet, path: api.PathHealth, query: q, auth: true}
	if _, err := c.do(ctx, r, &out); err != nil {
		return nil, fmt.Errorf("check health of %s: %w", repo, err)
	}
	return &out, nil
}

// TidyOptions select what Tidy fixes and whether it only plans.
type TidyOptions struct {
	Kinds  []string // none: every kind tidy fixes
	DryRun bool     // answer the plan without proposing it
}

// Tidy proposes a tidy of a repository for review (or, with DryRun,
// answers its plan); the server writes nothing itself.
func (c *Client) Tidy(ctx context.Context, repo string, o TidyOptions) (*api.TidyResponse, error) {
	q, err := repoQuery(repo)
	if err != nil {
		return nil, fmt.Errorf("tidy: %w", err)
	}
	if len(o.Kinds) > 0 {
		q.Set("kinds", strings.Join(o.Kinds, ","))
	}
	if o.DryRun {
		q.Set("dry_run", "1")
	}
	var out api.TidyResponse
	r := request{method: http.MethodPost, path: api.PathTidy, query: q, auth: true}
	if _, err := c.do(ctx, r, &out); err != nil {
		return nil, fmt.Errorf("tidy %s: %w", repo, err)
	}
	return &out, nil
}
