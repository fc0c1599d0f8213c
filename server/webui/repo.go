package webui

import (
	"errors"
	"html/template"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server/httpkit"

	"github.com/go-chi/chi/v5"

	"github.com/teammem/teammem/server"
)

// memoryIndex is the entry rendered first on a repository's page.
const memoryIndex = protocol.IndexName

// repoRow is one line of the repository list.
type repoRow struct {
	server.RepoState
	LastAuthor string
}

// repoList is the home page: the team repositories the caller can read and,
// apart, the caller's own personal memory (no one else's is ever listed:
// the Service lists only the caller's).
type repoList struct {
	Team, Personal []repoRow
}

// repos serves /ui/: the repositories the caller can read.
func (u *UI) repos(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	repos, err := u.svc.Repos(r.Context(), callerOf(r.Context()).p)
	if err != nil {
		return "", err
	}
	var list repoList
	for _, st := range repos {
		last, err := u.svc.Activity(r.Context(), callerOf(r.Context()).p, st.Repo, 0, 1)
		if err != nil && !errors.Is(err, server.ErrNotFound) {
			return "", err
		}
		row := repoRow{RepoState: st}
		if len(last.Items) > 0 {
			row.LastAuthor = last.Items[0].Author
		}
		if server.IsPersonal(st.Repo) {
			list.Personal = append(list.Personal, row)
		} else {
			list.Team = append(list.Team, row)
		}
	}
	pg.Title, pg.Data = "Repositories", list
	return "repos", nil
}

// repoName is how a repository is shown: its slug, or "~/<slug>" for the
// caller's personal memory of a slug (the name the agent takes).
func repoName(repo string) string {
	if server.IsPersonal(repo) {
		return protocol.MyPersonalRepo(server.PersonalSlug(repo))
	}
	return repo
}

// repoPath splits the path after /ui/r/ into the repository and the action
// after "/~" ("" for the repository's page). "~" never occurs in a
// canonical slug, so no repository can shadow an action.
func repoPath(r *http.Request) (repo, action string, err error) {
	rest := chi.URLParam(r, "*")
	if i := strings.Index(rest, "/~"); i >= 0 {
		rest, action = rest[:i], rest[i+2:]
	}
	repo, err = server.CanonicalRepo(rest)
	return repo, action, err
}

// repoGet serves the pages of one repository.
func (u *UI) repoGet(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	repo, action, err := repoPath(r)
	if err != nil {
		return "", err
	}
	httpkit.SetLogRepo(r, repo)
	pg.Repo = repo
	switch action {
	case "":
		return u.repoPage(r, pg, repo)
	case "entry":
		return u.entryPage(w, r, pg, repo)
	case "diff":
		return u.diffPage(r, pg, repo)
	case "search":
		return u.searchPage(w, r, pg, repo)
	case "activity":
		return u.activityPage(r, pg, repo)
	case "blame":
		return u.blamePage(r, pg, repo)
	case "restore":
		return u.restorePage(r, pg, repo)
	case "health":
		return u.healthPage(r, pg, repo)
	}
	return "", httpkit.NotFound("no such page")
}

// repoPost serves the repository's forms (restore, review policy, tidy).
func (u *UI) repoPost(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	repo, action, err := repoPath(r)
	if err != nil {
		return "", err
	}
	httpkit.SetLogRepo(r, repo)
	pg.Repo = repo
	switch action {
	case "restore":
		return "", u.restore(w, r, repo)
	case "policy":
		return "", u.setPolicy(w, r, repo)
	case "tidy":
		return u.tidy(r, pg, repo)
	}
	return "", httpkit.NotFound("no such form")
}

// repoView is what a repository's page shows.
type repoView struct {
	State    server.RepoState
	Index    template.HTML // rendered MEMORY.md; empty when there is none
	HasIndex bool
	Tree     template.HTML // the rows of the entry tree
	Entries  int
	Deleted  []server.Tombstone // most recent first
	CanWrite bool
	Activity server.ActivityPage
	Stale    []*staleView // the live entries whose verdict names stale references, by key
	Org      orgView
	Own      []ownProposal // the caller's open proposals of the repository, newest first
}

// repoPage serves /ui/r/<repo>: MEMORY.md rendered, the tree of
// entries, and the deleted entries.
func (u *UI) repoPage(r *http.Request, pg *page, repo string) (string, error) {
	ctx := r.Context()
	p := callerOf(ctx).p
	// The reads are independent: run them at once, so the page
	// waits for the slowest, not for their sum.
	var (
		snap    server.Snapshot
		authors map[string]string
		act     server.ActivityPage
		stale   []*staleView
		org     orgView
		own     []server.Proposal
		errs    [6]error
		wg      sync.WaitGroup
	)
	wg.Go(func() { snap, errs[0] = u.svc.Snapshot(ctx, p, repo, server.ReadOptions{}) })
	wg.Go(func() { authors, errs[1] = u.svc.LastAuthors(ctx, p, repo) })
	wg.Go(func() { act, errs[2] = u.svc.Activity(ctx, p, repo, 0, activityOnRepoPage) })
	wg.Go(func() { stale, errs[3] = u.staleWarnings(ctx, p, repo) })
	wg.Go(func() { org, errs[4] = u.orgViewOf(ctx, p, repo) })
	wg.Go(func() { own, errs[5] = u.ownProposals(ctx, p, repo) })
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return "", err
		}
	}
	v := repoView{State: snap.RepoState, Tree: treeHTML(repo, entryTree(snap.Live, authors)), Entries: len(snap.Live),
		CanWrite: p.Can(repo, server.PermWrite), Activity: act}
	for _, e := range snap.Live {
		if e.Key != memoryIndex {
			continue
		}
		rev, err := u.svc.Revision(ctx, p, repo, e.Key, e.Version)
		if err != nil && !errors.Is(err, server.ErrNotFound) {
			return "", err
		}
		v.Index, v.HasIndex = u.md.render(repo, e.Key, rev.Content), err == nil
	}
	if v.HasIndex { // the page shows the index's content, and the tree's keys only
		u.svc.RecordServed(p, snap.Repo, snap.Version, server.ServedWeb, memoryIndex)
	} else {
		u.svc.RecordServed(p, snap.Repo, snap.Version, server.ServedWeb)
	}
	v.Stale, v.Org, v.Own = stale, org, ownProposalsOf(own)
	v.Deleted = append(v.Deleted, snap.Deleted...)
	sort.SliceStable(v.Deleted, func(i, j int) bool { return v.Deleted[i].DeletedAt.After(v.Deleted[j].DeletedAt) })
	pg.Title, pg.Data = repoName(repo), v
	return "repo", nil
}

// activityOnRepoPage is how many versions the repository page lists.
const activityOnRepoPage = 15

// activityPage serves ~activity[?before=V]: a page of the repository's
// versions, newest first, each with who made it and the keys it changed.
func (u *UI) activityPage(r *http.Request, pg *page, repo string) (string, error) {
	before, err := httpkit.OptionalInt(r.URL.Query(), "before")
	if err != nil {
		return "", err
	}
	act, err := u.svc.Activity(r.Context(), callerOf(r.Context()).p, repo, before, server.DefaultActivityLimit)
	if err != nil {
		return "", err
	}
	pg.Title, pg.Data = "Activity · "+repoName(repo), act
	return "activity", nil
}
