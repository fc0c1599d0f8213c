package webui

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/teammem/teammem/internal/linediff"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// The review queue lists proposals (/ui/proposals, ?repo= for one
// repository's, ?state= for decided ones); a proposal's page shows each
// key's diff against the current text and its author's provenance, and to
// a reviewer a form to approve or reject it with a comment (to its author,
// one to withdraw it). The forms carry the session's CSRF token and post
// only from the UI's own origin.

// queueView is what the review queue shows.
type queueView struct {
	Repo      string
	State     string
	Proposals []server.Proposal
	Next      int64
	// Policy is the repository's review policy, and CanSetPolicy whether
	// the caller may change it (a repository's queue only).
	Policy       server.ReviewPolicy
	CanSetPolicy bool
}

// proposalsPage serves /ui/proposals[?repo=R&state=S&before=ID].
func (u *UI) proposalsPage(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	q := r.URL.Query()
	req := server.ProposalsRequest{Repo: q.Get("repo"), Limit: 100}
	v := queueView{State: q.Get("state")}
	if v.State == "" {
		v.State = string(server.ProposalOpen)
	}
	var err error
	if req.State, err = server.ParseProposalState(v.State); err != nil {
		return "", err
	}
	if req.Before, err = httpkit.OptionalInt(q, "before"); err != nil {
		return "", err
	}
	if req.Repo != "" {
		if req.Repo, err = server.CanonicalRepo(req.Repo); err != nil {
			return "", err
		}
	}
	v.Repo = req.Repo
	p := callerOf(r.Context()).p
	if v.Proposals, v.Next, err = u.svc.Proposals(r.Context(), p, req); err != nil {
		return "", err
	}
	if v.Repo != "" {
		if _, v.Policy, err = u.svc.ReviewPolicy(r.Context(), p, v.Repo); err != nil {
			return "", err
		}
		v.CanSetPolicy = p.Can(v.Repo, server.PermAdmin) && !p.ProposeOnly && !server.IsPersonal(v.Repo)
	}
	pg.Title, pg.Repo, pg.Data = "Review queue", req.Repo, v
	return "proposals", nil
}

// proposalView is what a proposal's page shows.
type proposalView struct {
	server.ProposalView
	Changes []changeView
}

// changeView is one key of a proposal: what it does and its diff from the
// current text.
type changeView struct {
	Key     string
	Delete  bool
	Absent  bool // the key is absent now
	Moved   bool // the key changed since it was proposed
	Blocks  []linediff.Block
	Current string
	Note    string // why it is proposed, when its author said
}

// proposalID reads the {id} of a proposal's page.
func proposalID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, httpkit.NotFound("no such proposal")
	}
	return id, nil
}

// proposalPage serves /ui/proposals/{id}.
func (u *UI) proposalPage(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	id, err := proposalID(r)
	if err != nil {
		return "", err
	}
	pv, err := u.svc.Proposal(r.Context(), callerOf(r.Context()).p, id)
	if err != nil {
		return "", err
	}
	v := proposalView{ProposalView: pv}
	for _, c := range pv.Changes {
		cur, live := pv.Current[c.Key]
		next := c.Content
		if c.Delete {
			next = ""
		}
		v.Changes = append(v.Changes, changeView{Key: c.Key, Delete: c.Delete, Absent: !live, Current: cur,
			Moved: live == c.BaseAbsent || cur != c.Base, Blocks: lineDiff(cur, next), Note: c.Note})
	}
	pg.Title, pg.Repo, pg.Data = "Proposal #"+strconv.FormatInt(id, 10), pv.Repo, v
	return "proposal", nil
}

// decideProposal serves POST /ui/proposals/{id}: the page's form, with
// decision approve, reject or withdraw and a comment; it answers with the
// proposal's page again.
func (u *UI) decideProposal(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	id, err := proposalID(r)
	if err != nil {
		return "", err
	}
	if err := u.checkForm(r); err != nil {
		return "", err
	}
	d, err := server.ParseDecision(r.PostForm.Get("decision"))
	if err != nil {
		return "", err
	}
	prov, err := httpkit.Claims(r, server.SurfaceWeb, false)
	if err != nil {
		return "", err
	}
	if _, err := u.svc.Decide(r.Context(), callerOf(r.Context()).p, id, d, r.PostForm.Get("comment"), prov); err != nil {
		return "", err
	}
	http.Redirect(w, r, proposalURL(id), http.StatusSeeOther)
	return "", nil
}

// setPolicy serves POST /ui/r/<repo>/~policy, the review queue's form
// setting the repository's policy (its admins), and answers with the
// queue.
func (u *UI) setPolicy(w http.ResponseWriter, r *http.Request, repo string) error {
	if err := u.checkForm(r); err != nil {
		return err
	}
	pol, err := server.ParseReviewPolicy(r.PostForm.Get("review"))
	if err != nil {
		return err
	}
	prov, err := httpkit.Claims(r, server.SurfaceWeb, false)
	if err != nil {
		return err
	}
	if _, err := u.svc.SetReviewPolicy(r.Context(), callerOf(r.Context()).p, repo, pol, prov); err != nil {
		return err
	}
	http.Redirect(w, r, queueURL(repo, "", 0), http.StatusSeeOther)
	return nil
}

// proposalURL is a proposal's page.
func proposalURL(id int64) string { return prefix + "/proposals/" + strconv.FormatInt(id, 10) }

// queueURL is the review queue of repo ("" for every repository) in a
// state, from the proposals before id before (0: the newest).
func queueURL(repo, state string, before int64) string {
	q := url.Values{}
	if repo != "" {
		q.Set("repo", repo)
	}
	if state != "" && state != string(server.ProposalOpen) {
		q.Set("state", state)
	}
	if before > 0 {
		q.Set("before", strconv.FormatInt(before, 10))
	}
	if len(q) == 0 {
		return prefix + "/proposals"
	}
	return prefix + "/proposals?" + q.Encode()
}

// reviewCount is how many open proposals the caller may decide, for the
// header (0 when it reviews nothing, or listing fails: the header is no
// place for an error).
func (u *UI) reviewCount(r *http.Request) int {
	n, err := u.svc.ReviewCount(r.Context(), callerOf(r.Context()).p)
	if err != nil {
		return 0
	}
	return n
}
