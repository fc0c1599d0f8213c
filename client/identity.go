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

// ServerInfo fetches the server's identity (GET /api/v1/server, no token).
// A server older than the identity answers ErrNotFound.
func (c *Client) ServerInfo(ctx context.Context) (*api.ServerInfo, error) {
	var info api.ServerInfo
	if _, err := c.do(ctx, request{method: http.MethodGet, path: api.PathServer}, &info); err != nil {
		return nil, fmt.Errorf("get server identity: %w", err)
	}
	if info.ServerID == "" {
		return nil, fmt.Errorf("get server identity: %w: no serverId", ErrInvalidResponse)
	}
	return &info, nil
}

// Seen tells, for each key of entries (key → entry checksum), the newest
// version of repo at which the key held that content, or was deleted
// holding it (POST /api/v1/seen, in requests of at most api.MaxSeenEntries
// keys); keys that never held it are left out. Errors: those of Get, and
// ErrNotFound from a server older than the lookup.
func (c *Client) Seen(ctx context.Context, repo string, entries map[string]string) (map[string]int64, error) {
	q, err := repoQuery(repo)
	if err != nil {
		return nil, fmt.Errorf("look up checksums: %w", err)
	}
	seen := map[string]int64{}
	keys := slices.Sorted(maps.Keys(entries))
	for chunk := range slices.Chunk(keys, api.MaxSeenEntries) {
		ask := api.SeenRequest{Entries: make(map[string]string, len(chunk))}
		for _, k := range chunk {
			ask.Entries[k] = entries[k]
		}
		body, err := json.Marshal(ask)
		if err != nil {
			return nil, fmt.Errorf("look up checksums: %w", err)
		}
		var out api.SeenResponse
		r := request{method: http.MethodPost, path: api.PathSeen, query: q, body: body, auth: true}
		if _, err := c.do(ctx, r, &out); err != nil {
			return nil, fmt.Errorf("look up checksums in %s: %w", repo, err)
		}
		maps.Copy(seen, out.Seen)
	}
	return seen, nil
}

// Whoami asks the server who this client's credential names (GET
// /api/v1/whoami). Errors: ErrUnauthorized when the token is missing,
// expired or revoked, and those of Get.
func (c *Client) Whoami(ctx context.Context) (*api.Whoami, error) {
	var w api.Whoami
	r := request{method: http.MethodGet, path: api.PathWhoami, auth: true}
	if _, err := c.do(ctx, r, &w); err != nil {
		return nil, fmt.Errorf("whoami: %w", err)
	}
	return &w, nil
}
