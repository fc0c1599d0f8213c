package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/teammem/teammem/api"
)

// GetOptions qualifies a pull.
type GetOptions struct {
	// IfNoneMatch is a dataset checksum ("sha256:…") or an entity tag; when
	// it matches, the server answers 304 and Get returns ErrNotModified.
	IfNoneMatch string
	// Since, when positive, asks for the keys changed after that version only
	// (teammem extension); ErrGone (410 since_too_old) means pull in full.
	Since int64
}

// Get pulls the team memory of repo (GET ?repo=R).
//
// Errors: ErrNotModified (wrapped, no body) when opts.IfNoneMatch matches,
// so that the caller keeps what it has; an *APIError matching ErrNotFound
// when the repo never held data, ErrGone when opts.Since was pruned,
// ErrUnauthorized/ErrForbidden/ErrRateLimited/ErrServer as their status
// says; ErrNetwork, ErrTimeout or ErrInvalidResponse otherwise.
func (c *Client) Get(ctx context.Context, repo string, opts GetOptions) (*api.TeamMemory, error) {
	q, err := repoQuery(repo)
	if err != nil {
		return nil, fmt.Errorf("get team memory: %w", err)
	}
	if opts.Since > 0 {
		q.Set("since", strconv.FormatInt(opts.Since, 10))
	}
	r := request{method: http.MethodGet, path: api.PathTeamMemory, query: q, auth: true}
	if opts.IfNoneMatch != "" {
		r.header = http.Header{"If-None-Match": {entityTag(opts.IfNoneMatch)}}
	}
	var m api.TeamMemory
	if _, err := c.do(ctx, r, &m); err != nil {
		return nil, fmt.Errorf("get team memory %s: %w", repo, err)
	}
	return &m, nil
}

// Hashes fetches the cheap probe of repo (GET ?repo=R&view=hashes): version,
// checksum and per-entry checksums, no contents. Errors as Get's (404 when
// the repo never held data).
func (c *Client) Hashes(ctx context.Context, repo string) (*api.Hashes, error) {
	q, err := repoQuery(repo)
	if err != nil {
		return nil, fmt.Errorf("get hashes: %w", err)
	}
	q.Set("view", "hashes")
	var h api.Hashes
	r := request{method: http.MethodGet, path: api.PathTeamMemory, query: q, auth: true}
	if _, err := c.do(ctx, r, &h); err != nil {
		return nil, fmt.Errorf("get hashes %s: %w", repo, err)
	}
	return &h, nil
}

// CreateOnly, given as Put's ifMatch, sends `If-None-Match: *` instead of
// If-Match: the push applies only while the repo has never held data, and
// is ErrPreconditionFailed (with the current checksum) otherwise. It is how
// a writer that believes the repo does not exist creates it without
// overwriting someone else's first push (protocol §4).
const CreateOnly = "If-None-Match: *"

// Put pushes req to repo (PUT ?repo=R). ifMatch, a dataset checksum or
// entity tag, makes the push conditional; CreateOnly makes it apply only to
// a repo that never held data; "" pushes unconditionally. The push carries
// Options.Machine and the Provenance of ctx (WithSurface, WithCommit).
//
// Errors (as *APIError): ErrPreconditionFailed when ifMatch no longer
// matches (CurrentChecksum gives the server's), ErrTooLarge (Code says which
// limit; EntryLimit gives max_entries/received_entries), ErrUnprocessable
// for secret_detected (Secret names key and rule), ErrBadRequest for an
// invalid key or body, and the statuses of Get; ErrNetwork, ErrTimeout or
// ErrInvalidResponse otherwise. A network error leaves unknown whether the
// push applied: reconcile before retrying.
func (c *Client) Put(ctx context.Context, repo string, req api.PutRequest, ifMatch string) (*api.PutResponse, error) {
	q, err := repoQuery(repo)
	if err != nil {
		return nil, fmt.Errorf("put team memory: %w", err)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("put team memory %s: encode body: %w", repo, err)
	}
	r := request{method: http.MethodPut, path: api.PathTeamMemory, query: q, body: body, auth: true, header: http.Header{}}
	switch ifMatch {
	case "":
	case CreateOnly:
		r.header.Set("If-None-Match", "*")
	default:
		r.header.Set("If-Match", entityTag(ifMatch))
	}
	c.setProvenance(ctx, r.header)
	var resp api.PutResponse
	if _, err := c.do(ctx, r, &resp); err != nil {
		return nil, fmt.Errorf("put team memory %s: %w", repo, err)
	}
	return &resp, nil
}

// repoQuery starts a query with repo=R; url.Values encodes the slash, which
// the server accepts (protocol §1). The server canonicalises the slug.
func repoQuery(repo string) (url.Values, error) {
	if strings.TrimSpace(repo) == "" {
		return nil, errors.New("repo is required")
	}
	return url.Values{"repo": {repo}}, nil
}

// entityTag quotes a bare checksum as an ETag; "*", quoted and weak tags and
// lists pass unchanged.
func entityTag(v string) string {
	v = strings.TrimSpace(v)
	if v == "*" || strings.HasPrefix(v, `"`) || strings.HasPrefix(v, `W/"`) {
		return v
	}
	return api.ETag(v)
}
