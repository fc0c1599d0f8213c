package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/teammem/teammem/api"
)

// SearchOptions narrow and page a search.
type SearchOptions struct {
	// Repo, when not empty, searches that repository only; otherwise every
	// repository the token can read.
	Repo string
	// Limit, when positive, caps the results of one page (the server caps
	// it too).
	Limit int
	// Cursor is the Next of the previous page, with the same query and Repo.
	Cursor string
}

// Search finds the live entries matching query (GET /api/v1/search), best
// first. Errors: ErrBadRequest (wrapped in an *Error saying why) for a query
// with no word or too long, or a cursor of another query; ErrForbidden when
// Repo is not readable; and those of Get.
func (c *Client) Search(ctx context.Context, query string, opts SearchOptions) (*api.SearchResults, error) {
	q := url.Values{"q": {query}}
	if opts.Repo != "" {
		q.Set("repo", opts.Repo)
	}
	if opts.Limit > 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	if opts.Cursor != "" {
		q.Set("cursor", opts.Cursor)
	}
	var res api.SearchResults
	r := request{method: http.MethodGet, path: api.PathSearch, query: q, auth: true}
	if _, err := c.do(ctx, r, &res); err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	return &res, nil
}
