package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/mcprest"
	"github.com/teammem/teammem/mcptools"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestHealthAndTidy: the client reads a repository's health and a
// tidy's dry run from the real server, and the agent's MCP backend gives
// memory_health the same findings; a tidy without review is refused, and
// a reader may not plan one.
func TestHealthAndTidy(t *testing.T) {
	ctx := context.Background()
	ts := servertest.Start(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"MEMORY.md": "- [a](a.md)\n- [gone](gone.md)\n", "a.md": "A.\n", "b.md": "a.\n"}, nil, 200)
	c, err := client.New(client.Options{BaseURL: ts.URL, Token: ts.Token("wes", "acme/api:write")})
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.Health(ctx, "acme/api")
	if err != nil || h.Version != 1 || len(h.Findings) != 3 {
		t.Fatalf("health %+v, %v", h, err)
	}
	mh, err := mcprest.New(c, mcprest.Local{}).Health(ctx, "acme/api")
	if err != nil || len(mh.Findings) != 3 || mh.Findings[0].Kind != h.Findings[0].Kind || mh.CheckedAt.IsZero() {
		t.Errorf("memory_health's backend %+v, %v", mh, err)
	}
	plan, err := c.Tidy(ctx, "acme/api", client.TidyOptions{DryRun: true, Kinds: []string{"dangling-link"}})
	if err != nil || plan.Proposal != "" || len(plan.Changes) != 1 {
		t.Errorf("dry run %+v, %v", plan, err)
	}
	// Tidy proposes for review whatever the policy (here off); it never writes.
	if got, err := c.Tidy(ctx, "acme/api", client.TidyOptions{}); err != nil || got.Proposal == "" || len(got.Changes) == 0 {
		t.Errorf("tidy %+v, %v; want a proposal", got, err)
	}
	if rs, _ := ts.Store.RepoState(ctx, "acme/api"); rs.Version != 1 {
		t.Errorf("tidy wrote: version %d", rs.Version)
	}
	r, _ := client.New(client.Options{BaseURL: ts.URL, Token: ts.Token("rita", "acme/api:read")})
	if _, err := r.Tidy(ctx, "acme/api", client.TidyOptions{DryRun: true}); !errors.Is(err, client.ErrForbidden) {
		t.Errorf("a reader's dry run = %v", err)
	}
	if _, err := mcprest.New(r, mcprest.Local{}).Health(ctx, "acme/nothing"); !errors.Is(err, mcptools.ErrForbidden) {
		t.Errorf("health of a repository without a grant = %v", err)
	}
}
