package client

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/teammem/teammem/api"
)

// staleReportChunk is how many entries one request carries: at the
// bounds of a finding (64 an entry, references of 200 bytes), 100 entries
// stay under the server's 4 MiB body limit.
const staleReportChunk = 100

// ReportStale sends the stale code references found in repo's topics at
// commit (POST /api/v1/stale-references), in requests of at most
// staleReportChunk entries; the answers are merged. Each entry's
// report replaces this reporter's previous one at that commit on the
// server; an entry the server no longer holds with that checksum is
// listed in Skipped. Errors: ErrNotFound
// from a server without the endpoint (older than this client),
// ErrForbidden without a write grant, and those of Get.
func (c *Client) ReportStale(ctx context.Context, repo string, req api.StaleReportRequest) (*api.StaleReportResponse, error) {
	q, err := repoQuery(repo)
	if err != nil {
		return nil, fmt.Errorf("report stale references: %w", err)
	}
	out := &api.StaleReportResponse{Recorded: []string{}, Skipped: []api.StaleSkippedEntry{}}
	keys := slices.Sorted(maps.Keys(req.Entries))
	for chunk := range slices.Chunk(keys, staleReportChunk) {
		part := api.StaleReportRequest{Commit: req.Commit, CommittedAt: req.CommittedAt, Branch: req.Branch,
			Entries: make(map[string]api.StaleReportEntry, len(chunk))}
		for _, k := range chunk {
			e := req.Entries[k]
			if e.Findings == nil {
				e.Findings = []api.StaleFinding{}
			}
			part.Entries[k] = e
		}
		body, err := json.Marshal(part)
		if err != nil {
			return nil, fmt.Errorf("report stale references: %w", err)
		}
		var res api.StaleReportResponse
		r := request{method: http.MethodPost, path: api.PathStaleReferences, query: q, body: body, auth: true}
		if _, err := c.do(ctx, r, &res); err != nil {
			return nil, fmt.Errorf("report stale references of %s: %w", repo, err)
		}
		out.Repo = res.Repo
		out.Recorded = append(out.Recorded, res.Recorded...)
		out.Skipped = append(out.Skipped, res.Skipped...)
	}
	return out, nil
}

// StaleReports reads the stale-reference verdict of each live entry of
// repo, or of key alone when not "" (GET /api/v1/stale-references): the
// report of the newest commit reported, and those of other commits that
// found otherwise.
func (c *Client) StaleReports(ctx context.Context, repo, key string) (*api.StaleReports, error) {
	q, err := repoQuery(repo)
	if err != nil {
		return nil, fmt.Errorf("read stale-reference reports: %w", err)
	}
	if key != "" {
		q.Set("key", key)
	}
	var out api.StaleReports
	r := request{method: http.MethodGet, path: api.PathStaleReferences, query: q, auth: true}
	if _, err := c.do(ctx, r, &out); err != nil {
		return nil, fmt.Errorf("read stale-reference reports of %s: %w", repo, err)
	}
	return &out, nil
}
