package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server/health"
	"github.com/teammem/teammem/server/httpkit"
)

// getHealth serves GET /api/v1/health?repo=R: the repository's findings.
func (h *handler) getHealth(w http.ResponseWriter, r *http.Request) error {
	repo := r.URL.Query().Get("repo")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	rep, err := h.health.Report(ctx, httpkit.Principal(ctx), repo)
	if err != nil {
		return err
	}
	httpkit.WriteJSON(w, http.StatusOK, HealthReport(rep))
	return nil
}

// HealthReport is a report on the wire (the REST API's and the MCP
// tool's).
func HealthReport(rep health.Report) api.HealthReport {
	out := api.HealthReport{Repo: rep.Repo, Version: rep.Version, CheckedAt: rep.CheckedAt.UTC().Format(time.RFC3339),
		Findings: make([]api.HealthFinding, len(rep.Findings))}
	for i, f := range rep.Findings {
		out.Findings[i] = api.HealthFinding{ID: f.ID(), Kind: f.Kind, Keys: f.Keys, Detail: f.Detail, Suggestion: f.Suggestion}
		if f.Kind == health.KindNearDuplicate {
			score := f.Score
			out.Findings[i].Score = &score
		}
	}
	return out
}

// postTidy serves POST /api/v1/tidy?repo=R[&kinds=K,…|&finding=ID][&dry_run=1]:
// one proposal fixing what tidy can, never a write; with dry_run the plan
// alone.
func (h *handler) postTidy(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	repo := q.Get("repo")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	kinds, err := health.ParseKinds(q.Get("kinds"))
	if err != nil {
		return err
	}
	sel := health.Selection{Kinds: kinds, Finding: q.Get("finding")}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	p := httpkit.Principal(ctx)
	var id string
	var plan health.TidyPlan
	if dry := q.Get("dry_run"); dry == "1" || dry == "true" {
		plan, err = h.health.Plan(ctx, p, repo, sel)
	} else {
		id, plan, err = h.health.Propose(ctx, p, repo, "rest", sel)
	}
	if err != nil {
		return err
	}
	out := api.TidyResponse{Repo: plan.Repo, Base: plan.Base, Proposal: id, Changes: []api.TidyChange{}, Fixes: nonNil(plan.Fixes)}
	for _, c := range plan.Changes {
		out.Changes = append(out.Changes, api.TidyChange{Key: c.Key, Delete: c.Delete, Content: c.Content, Note: c.Note})
	}
	httpkit.WriteJSON(w, http.StatusOK, out)
	return nil
}
