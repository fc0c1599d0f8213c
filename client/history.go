package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/teammem/teammem/api"
)

// HistoryOptions pages through a key's revisions.
type HistoryOptions struct {
	// Limit, when positive, caps the number of revisions returned.
	Limit int
	// Before, when positive, returns only revisions older than that version.
	Before int64
}

// set adds limit and before to q when they are positive.
func (o HistoryOptions) set(q url.Values) {
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Before > 0 {
		q.Set("before", strconv.FormatInt(o.Before, 10))
	}
}

// History lists the revisions of key in repo, newest first (GET
// .../history). Errors: ErrNotFound when the key never existed, and those
// of Get.
func (c *Client) History(ctx context.Context, repo, key string, opts HistoryOptions) (*api.History, error) {
	q, err := repoKeyQuery(repo, key)
	if err != nil {
		return nil, fmt.Errorf("get history: %w", err)
	}
	opts.set(q)
	var h api.History
	r := request{method: http.MethodGet, path: api.PathHistory, query: q, auth: true}
	if _, err := c.do(ctx, r, &h); err != nil {
		return nil, fmt.Errorf("get history %s %s: %w", repo, key, err)
	}
	return &h, nil
}

// Activity lists the versions of repo newest first, each with the keys it
// changed and deleted (GET /api/v1/activity); opts pages as for History
// (Before: the Next of the previous page). Errors: ErrNotFound when the
// repository never held data, and those of Get.
func (c *Client) Activity(ctx context.Context, repo string, opts HistoryOptions) (*api.Activity, error) {
	q, err := repoQuery(repo)
	if err != nil {
		return nil, fmt.Errorf("get activity: %w", err)
	}
	opts.set(q)
	var a api.Activity
	r := request{method: http.MethodGet, path: api.PathActivity, query: q, auth: true}
	if _, err := c.do(ctx, r, &a); err != nil {
		return nil, fmt.Errorf("get activity %s: %w", repo, err)
	}
	return &a, nil
}

// Revision fetches key's content as of version (GET .../revision); the
// content is empty for a delete. Restoring is a Put of that content.
// Errors: ErrNotFound when there is no such revision, and those of Get.
func (c *Client) Revision(ctx context.Context, repo, key string, version int64) (*api.RevisionContent, error) {
	q, err := repoKeyQuery(repo, key)
	if err != nil {
		return nil, fmt.Errorf("get revision: %w", err)
	}
	q.Set("version", strconv.FormatInt(version, 10))
	var rev api.RevisionContent
	r := request{method: http.MethodGet, path: api.PathRevision, query: q, auth: true}
	if _, err := c.do(ctx, r, &rev); err != nil {
		return nil, fmt.Errorf("get revision %s %s@%d: %w", repo, key, version, err)
	}
	return &rev, nil
}

// Repos lists the repositories the token can read (GET /api/v1/repos).
func (c *Client) Repos(ctx context.Context) (*api.RepoList, error) {
	var l api.RepoList
	r := request{method: http.MethodGet, path: api.PathRepos, auth: true}
	if _, err := c.do(ctx, r, &l); err != nil {
		return nil, fmt.Errorf("list repos: %w", err)
	}
	return &l, nil
}

// repoKeyQuery starts a query with repo=R&key=K.
func repoKeyQuery(repo, key string) (url.Values, error) {
	if key == "" {
		return nil, errors.New("key is required")
	}
	q, err := repoQuery(repo)
	if err != nil {
		return nil, err
	}
	q.Set("key", key)
	return q, nil
}
