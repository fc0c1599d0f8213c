package client

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/teammem/teammem/api"
)

// Provenance is what a push says of itself beyond the client's
// User-Agent and Options.Machine: the surface a teammem agent narrows its
// push to ("seed", "restore", "mcp", "consolidation"; "" for a plain
// push; set by WithSurface) and the HEAD commit of the checkout it pushes
// from (set by WithCommit). The server records both in the version's
// provenance, never trusts them for anything else, and refuses a push
// whose commit is not 7 to 64 lowercase hex digits.
type Provenance struct {
	Surface string
	Commit  string
}

type provenanceKey struct{}

// WithCommit returns ctx whose pushes name commit as the checkout's HEAD
// (sent as the Teammem-Commit header), keeping the surface ctx carries.
func WithCommit(ctx context.Context, commit string) context.Context {
	p := ProvenanceOf(ctx)
	p.Commit = commit
	return context.WithValue(ctx, provenanceKey{}, p)
}

// ProvenanceOf returns the Provenance ctx carries (none: the zero value).
func ProvenanceOf(ctx context.Context) Provenance {
	p, _ := ctx.Value(provenanceKey{}).(Provenance)
	return p
}

// maxMachine bounds the machine name sent (a host name is at most 64
// bytes on Linux, 255 in DNS).
const maxMachine = 64

// machineName keeps of a host name what every server accepts: ASCII
// letters, digits, '.', '-' and '_', at most maxMachine of them.
func machineName(host string) string {
	var b strings.Builder
	for _, r := range host {
		if b.Len() == maxMachine {
			break
		}
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_", r)) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// setProvenance adds a push's provenance headers to h.
func (c *Client) setProvenance(ctx context.Context, h http.Header) {
	if c.machine != "" {
		h.Set(api.HeaderMachine, c.machine)
	}
	p := ProvenanceOf(ctx)
	if p.Surface != "" {
		h.Set(SurfaceHeader, p.Surface)
	}
	if p.Commit != "" {
		h.Set(api.HeaderCommit, p.Commit)
	}
}

// Blame fetches every line of key in repo with the revision that
// introduced it (GET /api/v1/blame), at the newest revision at or before
// version (0: the newest). Errors: ErrNotFound when the key has no
// revision up to version, and those of Get.
func (c *Client) Blame(ctx context.Context, repo, key string, version int64) (*api.Blame, error) {
	q, err := repoKeyQuery(repo, key)
	if err != nil {
		return nil, fmt.Errorf("get blame: %w", err)
	}
	if version > 0 {
		q.Set("version", strconv.FormatInt(version, 10))
	}
	var b api.Blame
	r := request{method: http.MethodGet, path: api.PathBlame, query: q, auth: true}
	if _, err := c.do(ctx, r, &b); err != nil {
		return nil, fmt.Errorf("get blame %s %s: %w", repo, key, err)
	}
	return &b, nil
}
