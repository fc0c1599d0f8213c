package httpapi

import (
	"context"
	"net/http"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// getSearch serves GET /api/v1/search?q=TEXT[&repo=R][&limit=N][&cursor=C].
func (h *handler) getSearch(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	repo := q.Get("repo")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	limit, err := httpkit.OptionalInt(q, "limit")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	page, err := h.svc.Search(ctx, httpkit.Principal(ctx), server.SearchQuery{Text: q.Get("q"), Repo: repo,
		Limit: int(min(limit, server.MaxSearchLimit)), Cursor: q.Get("cursor")})
	if err != nil {
		return err
	}
	httpkit.WriteJSON(w, http.StatusOK, searchResults(page))
	return nil
}

// searchResults is the wire form of page.
func searchResults(page server.SearchPage) api.SearchResults {
	out := api.SearchResults{Results: make([]api.SearchResult, len(page.Results))}
	for i, res := range page.Results {
		m := res.Snippet.Matches
		if m == nil {
			m = [][2]int{}
		}
		out.Results[i] = api.SearchResult{Repo: res.Repo, Key: res.Key, Version: res.Version, Score: res.Score,
			Snippet: api.Snippet{Text: res.Snippet.Text, Matches: m}}
	}
	if page.Next != "" {
		out.Next = &page.Next
	}
	return out
}
