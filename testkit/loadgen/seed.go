package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/teammem/teammem/api"
)

// hashes fetches the hashes view and the ETag; a repository that never held
// data gives empty hashes and exists false.
func (c *client) hashes(ctx context.Context) (h api.Hashes, etag string, exists bool, err error) {
	r, err := c.do(ctx, http.MethodGet, c.url(api.PathTeamMemory, "view", "hashes"), nil, nil, true)
	if err != nil {
		return h, "", false, err
	}
	switch r.status {
	case http.StatusNotFound:
		return h, "", false, nil
	case http.StatusOK:
	default:
		return h, "", false, fmt.Errorf("get hashes of %s: status %d: %s", c.repo, r.status, excerpt(r.body))
	}
	if err := json.Unmarshal(r.body, &h); err != nil {
		return h, "", false, fmt.Errorf("decode hashes of %s: %w", c.repo, err)
	}
	return h, r.header.Get("ETag"), true, nil
}

// pull fetches the full team memory.
func (c *client) pull(ctx context.Context) (api.TeamMemory, error) {
	var tm api.TeamMemory
	r, err := c.do(ctx, http.MethodGet, c.url(api.PathTeamMemory), nil, nil, true)
	if err != nil {
		return tm, err
	}
	if r.status != http.StatusOK {
		return tm, fmt.Errorf("pull %s: status %d: %s", c.repo, r.status, excerpt(r.body))
	}
	if err := json.Unmarshal(r.body, &tm); err != nil {
		return tm, fmt.Errorf("decode pull of %s: %w", c.repo, err)
	}
	return tm, nil
}

// put sends one unconditional PUT and fails on anything but 200.
func (c *client) put(ctx context.Context, req api.PutRequest) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode put: %w", err)
	}
	r, err := c.do(ctx, http.MethodPut, c.url(api.PathTeamMemory), nil, body, true)
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return fmt.Errorf("seed %s: status %d: %s", c.repo, r.status, excerpt(r.body))
	}
	return nil
}

// seed makes the repository hold exactly n entries of size bytes (keys
// entryKey(0..n-1), generation 0), deleting any other live key first, in
// PUTs of at most MaxSeedBody bytes. Entries already right are not sent.
func (c *client) seed(ctx context.Context, n, size int) error {
	return c.seedWith(ctx, n, func(key string) string { return entryContent(key, 0, size) })
}

// seedWith is seed with the content of each key given by content.
func (c *client) seedWith(ctx context.Context, n int, content func(key string) string) error {
	h, _, _, err := c.hashes(ctx)
	if err != nil {
		return err
	}
	want := make(map[string]bool, n)
	var upserts []change
	for i := range n {
		key := entryKey(i)
		want[key] = true
		if content := content(key); h.EntryChecksums[key] != checksum(content) {
			upserts = append(upserts, change{key: key, content: content})
		}
	}
	var deletes []change
	for key := range h.EntryChecksums {
		if !want[key] {
			deletes = append(deletes, change{key: key, delete: true})
		}
	}
	for _, b := range append(pack(deletes), pack(upserts)...) {
		if err := c.put(ctx, b); err != nil {
			return err
		}
	}
	return nil
}

// change is one upsert or deletion of a seeding PUT.
type change struct {
	key, content string
	delete       bool
}

// pack groups changes into PUT bodies of at most MaxSeedBody bytes.
func pack(changes []change) []api.PutRequest {
	const envelope = len(`{"entries":{},"soft_delete_keys":[]}`)
	var (
		out  []api.PutRequest
		cur  api.PutRequest
		size = envelope
	)
	for _, ch := range changes {
		sz := jsonSize(ch.key) + 1
		if !ch.delete {
			sz += jsonSize(ch.content) + 1
		}
		if size+sz > MaxSeedBody && size > envelope {
			out, cur, size = append(out, cur), api.PutRequest{}, envelope
		}
		if ch.delete {
			cur.SoftDeleteKeys = append(cur.SoftDeleteKeys, ch.key)
		} else {
			if cur.Entries == nil {
				cur.Entries = map[string]string{}
			}
			cur.Entries[ch.key] = ch.content
		}
		size += sz
	}
	if size > envelope {
		out = append(out, cur)
	}
	return out
}

// jsonSize is the length of s encoded as a JSON string.
func jsonSize(s string) int {
	b, _ := json.Marshal(s)
	return len(b)
}
