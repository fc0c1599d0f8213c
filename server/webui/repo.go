package webui

import (
	"errors"
	"html/template"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

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

// uiRepos serves /ui/: the repositories the caller can read.
func (h *UI) uiRepos(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	repos, err := h.svc.Repos(r.Context(), callerOf(r.Context()).p)
	if err != nil {
		return "", err
	}
	rows := make([]repoRow, 0, len(repos))
	for _, st := range repos {
		last, err := h.svc.Activity(r.Context(), callerOf(r.Context()).p, st.Repo, 0, 1)
		if err != nil && !errors.Is(err, server.ErrNotFound) {
			return "", err
		}
		row := repoRow{RepoState: st}
		if len(last.Items) > 0 {
			row.LastAuthor = last.Items[0].Author
		}
		rows = append(rows, row)
	}
	pg.Title, pg.Data = "Repositories", rows
	return "repos", nil
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

// uiRepoGet serves the pages of one repository.
func (h *UI) uiRepoGet(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	repo, action, err := repoPath(r)
	if err != nil {
		return "", err
	}
	httpkit.SetLogRepo(r, repo)
	pg.Repo = repo
	switch action {
	case "":
		return h.uiRepoPage(r, pg, repo)
	case "entry":
		return h.uiEntryPage(r, pg, repo)
	case "diff":
		return h.uiDiffPage(r, pg, repo)
	case "search":
		return h.uiSearchPage(r, pg, repo)
	case "activity":
		return h.uiActivityPage(r, pg, repo)
	}
	return "", httpkit.NotFound("no such page")
}

// uiRepoPost serves the repository's forms (restore).
func (h *UI) uiRepoPost(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	repo, action, err := repoPath(r)
	if err != nil {
		return "", err
	}
	httpkit.SetLogRepo(r, repo)
	if action != "restore" {
		return "", httpkit.NotFound("no such form")
	}
	return "", h.uiRestore(w, r, repo)
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
}

// uiRepoPage serves /ui/r/<repo>: MEMORY.md rendered, the tree of
// entries, and the deleted entries.
func (h *UI) uiRepoPage(r *http.Request, pg *page, repo string) (string, error) {
	ctx := r.Context()
	p := callerOf(ctx).p
	// The three reads are independent: run them at once, so the page
	// waits for the slowest, not for their sum.
	var (
		snap    server.Snapshot
		authors map[string]string
		act     server.ActivityPage
		errs    [3]error
		wg      sync.WaitGroup
	)
	wg.Go(func() { snap, errs[0] = h.svc.Snapshot(ctx, p, repo, server.ReadOptions{}) })
	wg.Go(func() { authors, errs[1] = h.svc.LastAuthors(ctx, p, repo) })
	wg.Go(func() { act, errs[2] = h.svc.Activity(ctx, p, repo, 0, activityOnRepoPage) })
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
		rev, err := h.svc.Revision(ctx, p, repo, e.Key, e.Version)
		if err != nil && !errors.Is(err, server.ErrNotFound) {
			return "", err
		}
		v.Index, v.HasIndex = h.md.render(repo, e.Key, rev.Content), err == nil
	}
	v.Deleted = append(v.Deleted, snap.Deleted...)
	sort.SliceStable(v.Deleted, func(i, j int) bool { return v.Deleted[i].DeletedAt.After(v.Deleted[j].DeletedAt) })
	pg.Title, pg.Data = repo, v
	return "repo", nil
}

// activityOnRepoPage is how many versions the repository page lists.
const activityOnRepoPage = 15

// uiActivityPage serves ~activity[?before=V]: a page of the repository's
// versions, newest first, each with who made it and the keys it changed.
func (h *UI) uiActivityPage(r *http.Request, pg *page, repo string) (string, error) {
	before, err := httpkit.OptionalInt(r.URL.Query(), "before")
	if err != nil {
		return "", err
	}
	act, err := h.svc.Activity(r.Context(), callerOf(r.Context()).p, repo, before, server.DefaultActivityLimit)
	if err != nil {
		return "", err
	}
	pg.Title, pg.Data = "Activity · "+repo, act
	return "activity", nil
}

// Search limits: the query's length, the entries and lines shown.
const (
	maxQuery      = 200
	maxSearchHits = 100
	maxHitLines   = 3
	maxHitLine    = 240
)

// searchView is the search page.
type searchView struct {
	Query     string
	Hits      []searchHit
	Truncated bool
}

// searchHit is one entry that matched, with some of its matching lines.
type searchHit struct {
	Key     string
	ByKey   bool
	Lines   []searchLine
	Version int64
	At      time.Time
}

// searchLine is a matching line split around the first match.
type searchLine struct {
	N                    int
	Before, Match, After string
}

// uiSearchPage serves ~search?q=: a case-insensitive substring search
// across the keys and contents of a repository's live entries.
func (h *UI) uiSearchPage(r *http.Request, pg *page, repo string) (string, error) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if len(q) > maxQuery {
		return "", server.InvalidParameter("the search is longer than %d bytes", maxQuery)
	}
	v := searchView{Query: q}
	pg.Title, pg.Data = "Search "+repo, &v
	ctx := r.Context()
	if q == "" {
		_, err := h.svc.State(ctx, callerOf(ctx).p, repo)
		return "search", err
	}
	snap, err := h.svc.Snapshot(ctx, callerOf(ctx).p, repo, server.ReadOptions{WithContent: true})
	if err != nil {
		return "", err
	}
	lq := strings.ToLower(q)
	for _, e := range snap.Live {
		hit := searchHit{Key: e.Key, ByKey: strings.Contains(strings.ToLower(e.Key), lq), Version: e.Version, At: e.UpdatedAt}
		hit.Lines = matchingLines(e.Content, lq)
		if !hit.ByKey && len(hit.Lines) == 0 {
			continue
		}
		if len(v.Hits) == maxSearchHits {
			v.Truncated = true
			break
		}
		v.Hits = append(v.Hits, hit)
	}
	return "search", nil
}

// matchingLines returns up to maxHitLines lines of content holding lq
// (lower case), each cut around its first match.
func matchingLines(content, lq string) []searchLine {
	var out []searchLine
	for i, line := range strings.Split(content, "\n") {
		ll := strings.ToLower(line)
		at := strings.Index(ll, lq)
		if at < 0 {
			continue
		}
		if len(ll) != len(line) { // lower-casing changed the bytes: show the line plain
			out = append(out, searchLine{N: i + 1, Before: clip(line, maxHitLine)})
		} else {
			end := at + len(lq)
			out = append(out, searchLine{N: i + 1, Before: clipLeft(line[:at], maxHitLine/2), Match: line[at:end],
				After: clip(line[end:], maxHitLine/2)})
		}
		if len(out) == maxHitLines {
			break
		}
	}
	return out
}

// clip keeps at most n bytes of s (whole runes), marking a cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// clipLeft keeps at most the last n bytes of s (whole runes).
func clipLeft(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + strings.ToValidUTF8(s[len(s)-n:], "")
}
