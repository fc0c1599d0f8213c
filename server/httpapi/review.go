package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/internal/linediff"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// mountReview serves the review routes: a repository's policy, its
// proposals, and their decisions.
func (h *handler) mountReview(r chi.Router) {
	r.Get(api.PathPolicy, h.mw.Wrap(h.getPolicy))
	r.Put(api.PathPolicy, h.mw.Wrap(h.putPolicy))
	r.Get(api.PathProposals, h.mw.Wrap(h.getProposals))
	r.Get(api.PathProposals+"/{id}", h.mw.Wrap(h.getProposal))
	for _, d := range []server.Decision{server.DecideApprove, server.DecideReject, server.DecideWithdraw} {
		r.Post(api.PathProposals+"/{id}/"+string(d), h.mw.Wrap(h.postDecision(d)))
	}
}

// getPolicy serves GET /api/v1/policy?repo=R.
func (h *handler) getPolicy(w http.ResponseWriter, r *http.Request) error {
	repo := r.URL.Query().Get("repo")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	canon, pol, err := h.svc.ReviewPolicy(ctx, httpkit.Principal(ctx), repo)
	if err != nil {
		return err
	}
	httpkit.WriteJSON(w, http.StatusOK, api.Policy{Repo: canon, Review: string(pol)})
	return nil
}

// putPolicy serves PUT /api/v1/policy?repo=R {"review"}.
func (h *handler) putPolicy(w http.ResponseWriter, r *http.Request) error {
	repo := r.URL.Query().Get("repo")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	var in api.Policy
	if err := h.decodeJSON(w, r, &in); err != nil {
		return err
	}
	pol, err := server.ParseReviewPolicy(in.Review)
	if err != nil {
		return err
	}
	prov, err := httpkit.Claims(r, server.SurfaceREST, false)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	canon, err := h.svc.SetReviewPolicy(ctx, httpkit.Principal(ctx), repo, pol, prov)
	if err != nil {
		return err
	}
	httpkit.WriteJSON(w, http.StatusOK, api.Policy{Repo: canon, Review: string(pol)})
	return nil
}

// decodeJSON reads a bounded JSON body into v.
func (h *handler) decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := readBody(w, r, h.svc.Limits().MaxBodyBytes)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return server.InvalidBody("the request body is not the JSON object expected: %v", err)
	}
	return nil
}

// getProposals serves GET /api/v1/proposals[?repo=R&state=S&before=ID&limit=N].
func (h *handler) getProposals(w http.ResponseWriter, r *http.Request) error {
	p, err := readPage(r, server.MaxProposalsPage)
	if err != nil {
		return err
	}
	req := server.ProposalsRequest{Repo: p.repo, Before: p.before, Limit: p.limit, Author: p.query.Get("author")}
	if s := p.query.Get("state"); s != "" {
		if req.State, err = server.ParseProposalState(s); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	if p.query.Get("mine") == "1" {
		req.Author = httpkit.Principal(ctx).Subject
	}
	props, next, err := h.svc.Proposals(ctx, httpkit.Principal(ctx), req)
	if err != nil {
		return err
	}
	out := api.Proposals{Proposals: make([]api.Proposal, 0, len(props))}
	for _, prop := range props {
		out.Proposals = append(out.Proposals, WireProposal(prop))
	}
	if next > 0 {
		out.Next = &next
	}
	httpkit.WriteJSON(w, http.StatusOK, out)
	return nil
}

// proposalID reads the {id} of a proposal route.
func proposalID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, httpkit.NotFound("no such proposal")
	}
	return id, nil
}

// getProposal serves GET /api/v1/proposals/{id}.
func (h *handler) getProposal(w http.ResponseWriter, r *http.Request) error {
	id, err := proposalID(r)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	v, err := h.svc.Proposal(ctx, httpkit.Principal(ctx), id)
	if err != nil {
		return err
	}
	httpkit.WriteJSON(w, http.StatusOK, WireProposalDetail(v))
	return nil
}

// postDecision serves POST /api/v1/proposals/{id}/approve, reject or
// withdraw.
func (h *handler) postDecision(d server.Decision) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := proposalID(r)
		if err != nil {
			return err
		}
		var in api.DecisionRequest
		if r.ContentLength != 0 {
			if err := h.decodeJSON(w, r, &in); err != nil {
				return err
			}
		}
		prov, err := httpkit.Claims(r, server.SurfaceREST, false)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
		defer cancel()
		prop, err := h.svc.Decide(ctx, httpkit.Principal(ctx), id, d, in.Comment, prov)
		if err != nil {
			return err
		}
		httpkit.WriteJSON(w, http.StatusOK, WireProposal(prop))
		return nil
	}
}

// WireProposal is a proposal as the API shows it, without content.
func WireProposal(p server.Proposal) api.Proposal {
	out := api.Proposal{ID: p.ID, Repo: p.Repo, State: string(p.State), Author: p.Author, CreatedAt: formatTime(p.CreatedAt),
		UpdatedAt: formatTime(p.UpdatedAt), BaseVersion: p.BaseVersion, Keys: p.Keys(), DecidedBy: p.DecidedBy,
		Comment: p.Comment, AppliedVersion: p.AppliedVersion, Provenance: wireProvenance(p.Provenance)}
	if !p.DecidedAt.IsZero() {
		out.DecidedAt = formatTime(p.DecidedAt)
	}
	for _, c := range p.Changes {
		if c.Delete {
			out.Deleted = append(out.Deleted, c.Key)
		}
	}
	return out
}

// WireProposalDetail is a proposal with each key's content, current text
// and diff.
func WireProposalDetail(v server.ProposalView) api.ProposalDetail {
	out := api.ProposalDetail{Proposal: WireProposal(v.Proposal), Changes: make([]api.ProposalChange, 0, len(v.Changes)),
		CanReview: v.CanReview, CanWithdraw: v.CanWithdraw}
	for _, c := range v.Changes {
		ch := api.ProposalChange{Key: c.Key, Note: c.Note}
		if !c.Delete {
			ch.Content = &c.Content
		}
		if cur, ok := v.Current[c.Key]; ok {
			ch.Current = &cur
		}
		ch.Diff = linediff.Unified("current/"+c.Key, "proposed/"+c.Key, deref(ch.Current), deref(ch.Content))
		out.Changes = append(out.Changes, ch)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
