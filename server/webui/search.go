package webui

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/teammem/teammem/server"
)

// searchPageSize is how many results a search page shows.
const searchPageSize = 20

// searchView is the search page: the search index's results (the
// Service's, as GET /api/v1/search answers), in one repository or in
// every repository the caller can read.
type searchView struct {
	Query    string
	Repo     string // "": every readable repository
	Error    string // why the query was refused (400), for the person who typed it
	Results  []searchResult
	Searched bool
	Next     string // the next page's URL; "" when there is none
	Paged    bool   // this is not the first page
}

// searchResult is one entry found, with its snippet cut around the matches.
type searchResult struct {
	Repo    string
	Key     string
	Snippet []snippetPart
}

// snippetPart is a run of a snippet, marked when it is a match.
type snippetPart struct {
	Text string
	Mark bool
}

// searchPage serves <repo>/~search?q=[&cursor=C]: the repository's live
// entries matching q, through the search index.
func (u *UI) searchPage(w http.ResponseWriter, r *http.Request, pg *page, repo string) (string, error) {
	if strings.TrimSpace(r.URL.Query().Get("q")) == "" {
		// Nothing to search: the form, for a repository the caller can read.
		if _, err := u.svc.State(r.Context(), callerOf(r.Context()).p, repo); err != nil {
			return "", err
		}
	}
	return u.search(w, r, pg, repo)
}

// searchAll serves /ui/search?q=[&cursor=C]: the live entries matching q
// in every repository the caller can read (and nothing of the others: the
// index query is filtered by the caller's grants).
func (u *UI) searchAll(w http.ResponseWriter, r *http.Request, pg *page) (string, error) {
	return u.search(w, r, pg, "")
}

// search fills the search page of repo ("" for all). A refused query (too
// long, no word, a cursor of another query) is shown on the page with its
// reason and status 400, the form keeping what was typed.
func (u *UI) search(w http.ResponseWriter, r *http.Request, pg *page, repo string) (string, error) {
	qs := r.URL.Query()
	q, cursor := strings.TrimSpace(qs.Get("q")), qs.Get("cursor")
	v := &searchView{Query: q, Repo: repo, Paged: cursor != ""}
	pg.Title, pg.Data = "Search", v
	if repo != "" {
		pg.Title = "Search " + repoName(repo)
	}
	if q == "" {
		return "search", nil
	}
	ctx := r.Context()
	res, err := u.svc.Search(ctx, callerOf(ctx).p, server.SearchQuery{Text: q, Repo: repo, Limit: searchPageSize, Cursor: cursor})
	var bad *server.RequestError
	if errors.As(err, &bad) {
		v.Error = strings.TrimPrefix(bad.Message, "q: ")
		u.render(w, r, http.StatusBadRequest, "search", pg)
		return "", nil
	}
	if err != nil {
		return "", err
	}
	v.Searched = true
	for _, hit := range res.Results {
		v.Results = append(v.Results, searchResult{Repo: hit.Repo, Key: hit.Key, Snippet: snippetParts(hit.Snippet)})
	}
	if res.Next != "" {
		v.Next = searchURL(repo, q, res.Next)
	}
	return "search", nil
}

// searchURL is the search page of repo ("" for all) for q, at cursor.
func searchURL(repo, q, cursor string) string {
	base := prefix + "/search"
	if repo != "" {
		base = repoURL(repo) + "/~search"
	}
	v := url.Values{"q": {q}}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	return base + "?" + v.Encode()
}

// snippetParts cuts a snippet's text at its matches (code-point offsets,
// in order); offsets out of range or overlapping an earlier match are
// ignored, so a bad snippet shows as plain text rather than failing.
func snippetParts(s server.Snippet) []snippetPart {
	runes := []rune(s.Text)
	var parts []snippetPart
	at := 0
	for _, m := range s.Matches {
		start, end := m[0], m[1]
		if start < at || end <= start || end > len(runes) {
			continue
		}
		if start > at {
			parts = append(parts, snippetPart{Text: string(runes[at:start])})
		}
		parts = append(parts, snippetPart{Text: string(runes[start:end]), Mark: true})
		at = end
	}
	if at < len(runes) {
		parts = append(parts, snippetPart{Text: string(runes[at:])})
	}
	return parts
}
