package webui

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
	"github.com/teammem/teammem/server/httpkit"
)

// The Health page lists a repository's findings, each with what would
// fix it; a writer gets a button on each finding tidy can fix, and one
// for all of them, which propose the fix for review (never write it).

// healthView is what the Health page shows.
type healthView struct {
	Report health.Report
	Kinds  []kindCount
	// CanPropose: the caller may write the repository and it has review
	// (a personal repository has none): the page shows the buttons.
	CanPropose bool
	Fixable    int // findings tidy can fix
}

// kindCount is one kind and how many findings of it there are.
type kindCount struct {
	Kind string
	N    int
}

// healthPage serves /ui/r/<repo>/~health.
func (u *UI) healthPage(r *http.Request, pg *page, repo string) (string, error) {
	ctx := r.Context()
	p := callerOf(ctx).p
	rep, err := u.health.Report(ctx, p, repo)
	if err != nil {
		return "", err
	}
	v := healthView{Report: rep, CanPropose: p.Can(rep.Repo, server.PermWrite) && !server.IsPersonal(rep.Repo)}
	counts := rep.Count()
	for _, k := range health.Kinds {
		v.Kinds = append(v.Kinds, kindCount{Kind: k, N: counts[k]})
		if slices.Contains(health.Fixable, k) {
			v.Fixable += counts[k]
		}
	}
	pg.Title, pg.Data = "Health of "+rep.Repo, v
	return "health", nil
}

// tidyView is what the page after a proposal shows.
type tidyView struct {
	Proposal int64 // 0: none, the plan was empty
	Plan     health.TidyPlan
}

// tidy serves POST ~tidy, a Health page button: it proposes the fix of
// one finding (finding) or of all (no finding) for review, and shows
// the proposal. Only a writer may; the server writes nothing.
func (u *UI) tidy(r *http.Request, pg *page, repo string) (string, error) {
	if err := u.checkForm(r); err != nil {
		return "", err
	}
	ctx := r.Context()
	id, plan, err := u.health.Propose(ctx, callerOf(ctx).p, repo, "web", health.Selection{Finding: r.PostForm.Get("finding")})
	if err != nil {
		return "", err
	}
	if plan.Empty() && r.PostForm.Get("finding") != "" {
		return "", httpkit.NotFound("that finding is fixed already or tidy cannot fix it; reload the Health page")
	}
	n, _ := strconv.ParseInt(id, 10, 64)
	pg.Title, pg.Data = "Tidy proposed", tidyView{Proposal: n, Plan: plan}
	return "tidy", nil
}

// isFixable reports whether tidy fixes findings of kind (for the page).
func isFixable(kind string) bool { return slices.Contains(health.Fixable, kind) }
