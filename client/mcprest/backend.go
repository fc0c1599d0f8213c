// Package mcprest is the backend of the team memory MCP tools (mcptools)
// over the REST client: what `teammem-agent mcp` serves on stdio, so that
// an assistant that cannot reach /mcp with a header gets the same tools,
// talking to the server with the agent's token and grants.
package mcprest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/localsearch"
	"github.com/teammem/teammem/mcptools"
)

// Backend is mcptools.Backend over a client.Client; safe for concurrent
// use.
type Backend struct {
	c     *client.Client
	local Local
}

var _ mcptools.Backend = (*Backend)(nil)

// Local is the memory folder on disk that Search answers from when the
// server is unreachable: Dir (none: no fallback) holds repository Repo,
// less the folders Exclude (slash paths relative to Dir); Kind names it in
// the note ("team folder").
type Local struct {
	Dir, Repo, Kind string
	Exclude         []string
}

// New returns the backend over c, falling back to local.
func New(c *client.Client, local Local) *Backend { return &Backend{c: c, local: local} }

// State reads the repository's hashes view.
func (b *Backend) State(ctx context.Context, repo string) (mcptools.State, error) {
	h, err := b.c.Hashes(ctx, repo)
	if errors.Is(err, client.ErrNotFound) {
		return mcptools.State{Repo: repo}, nil
	}
	if err != nil {
		return mcptools.State{}, mark(err)
	}
	return mcptools.State{Repo: repo, Version: h.Version, Checksum: h.Checksum, Entries: h.EntryChecksums}, nil
}

// maxAuthorPages bounds the activity pages List reads to name each entry's
// last author.
const maxAuthorPages = 10

// List pulls the repository in full and names each entry's last author and
// time from its activity (the newest versions first, at most
// maxAuthorPages pages of it; older entries go without).
func (b *Backend) List(ctx context.Context, repo string) ([]mcptools.Entry, error) {
	tm, err := b.c.Get(ctx, repo, client.GetOptions{})
	if errors.Is(err, client.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, mark(err)
	}
	last, err := b.lastChanges(ctx, repo, len(tm.Content.Entries))
	if err != nil {
		return nil, err
	}
	out := make([]mcptools.Entry, 0, len(tm.Content.Entries))
	for k, content := range tm.Content.Entries {
		ch := last[k]
		out = append(out, mcptools.Entry{Key: k, Checksum: tm.Content.EntryChecksums[k], Size: int64(len(content)), Content: content,
			Author: ch.Author, At: ch.At})
	}
	slices.SortFunc(out, func(a, b mcptools.Entry) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// lastChanges maps keys to the newest version that put them, reading the
// activity until want keys are found.
func (b *Backend) lastChanges(ctx context.Context, repo string, want int) (map[string]mcptools.Change, error) {
	last := map[string]mcptools.Change{}
	var before int64
	for range maxAuthorPages {
		a, err := b.c.Activity(ctx, repo, client.HistoryOptions{Limit: 100, Before: before})
		if errors.Is(err, client.ErrNotFound) {
			return last, nil
		}
		if err != nil {
			return nil, mark(err)
		}
		for _, it := range a.Items {
			for _, k := range it.Changed {
				if _, seen := last[k]; !seen {
					last[k] = change(it)
				}
			}
		}
		if a.Next == nil || len(last) >= want {
			break
		}
		before = *a.Next
	}
	return last, nil
}

// History lists a key's revisions; a key that never existed has none.
func (b *Backend) History(ctx context.Context, repo, key string, limit int) ([]mcptools.Revision, error) {
	h, err := b.c.History(ctx, repo, key, client.HistoryOptions{Limit: limit})
	if errors.Is(err, client.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, mark(err)
	}
	out := make([]mcptools.Revision, 0, len(h.Revisions))
	for _, r := range h.Revisions {
		out = append(out, mcptools.Revision{Version: r.Version, Op: r.Op, Checksum: r.Checksum, Size: r.Size, Author: r.Author, At: parseTime(r.At),
			Provenance: provenance(r.Provenance)})
	}
	return out, nil
}

// Revision reads one revision with its content; version 0 asks the server
// for the key's newest revision, in one request. A server from before
// that refuses a revision read without a version (400): the newest
// version is then read from the key's history first.
func (b *Backend) Revision(ctx context.Context, repo, key string, version int64) (mcptools.Revision, error) {
	r, err := b.c.Revision(ctx, repo, key, version)
	if version == 0 && errors.Is(err, client.ErrBadRequest) {
		return b.newestFromHistory(ctx, repo, key)
	}
	if err != nil {
		return mcptools.Revision{}, mark(err)
	}
	return mcptools.Revision{Version: r.Version, Op: r.Op, Checksum: r.Checksum, Size: int64(len(r.Content)), Author: r.Author,
		At: parseTime(r.At), Content: r.Content, Provenance: provenance(r.Provenance)}, nil
}

// newestFromHistory is Revision(version 0) against an older server.
func (b *Backend) newestFromHistory(ctx context.Context, repo, key string) (mcptools.Revision, error) {
	revs, err := b.History(ctx, repo, key, 1)
	if err != nil {
		return mcptools.Revision{}, err
	}
	if len(revs) == 0 {
		return mcptools.Revision{}, mcptools.Mark(fmt.Errorf("%q has no revision", key), mcptools.ErrNotFound)
	}
	if revs[0].Op == "delete" {
		return revs[0], nil
	}
	return b.Revision(ctx, repo, key, revs[0].Version)
}

// Activity reads the repository's newest versions.
func (b *Backend) Activity(ctx context.Context, repo string, limit int) ([]mcptools.Change, error) {
	a, err := b.c.Activity(ctx, repo, client.HistoryOptions{Limit: limit})
	if err != nil {
		return nil, mark(err)
	}
	out := make([]mcptools.Change, 0, len(a.Items))
	for _, it := range a.Items {
		out = append(out, change(it))
	}
	return out, nil
}

func change(it api.ActivityItem) mcptools.Change {
	return mcptools.Change{Version: it.Version, At: parseTime(it.At), Author: it.Author, Changed: it.Changed, Deleted: it.Deleted,
		Provenance: provenance(it.Provenance)}
}

// provenance is a version's provenance for the tools; nil from a server
// that does not record it.
func provenance(p *api.Provenance) *mcptools.Provenance {
	if p == nil {
		return nil
	}
	return &mcptools.Provenance{Subject: p.Subject, DisplayName: p.DisplayName, Credential: p.Credential, Surface: p.Surface,
		Client: p.Client, Machine: p.Machine, Commit: p.Commit}
}

// Write is one PUT.
func (b *Backend) Write(ctx context.Context, repo string, w mcptools.Write) (mcptools.WriteResult, error) {
	ifMatch := w.IfMatch
	if ifMatch == mcptools.CreateOnly {
		ifMatch = client.CreateOnly
	}
	ctx = client.WithSurface(ctx, "mcp")
	res, err := b.c.Put(ctx, repo, api.PutRequest{Entries: w.Entries, SoftDeleteKeys: w.Deletes, AllOrNothing: w.AllOrNothing}, ifMatch)
	if err != nil {
		return mcptools.WriteResult{}, mark(err)
	}
	out := mcptools.WriteResult{Version: res.Version, Checksum: res.Checksum, Changed: res.Changed, Deleted: res.Deleted}
	if res.Proposal != nil {
		out.Proposal = res.Proposal.ID
	}
	for _, s := range res.Skipped {
		out.Skipped = append(out.Skipped, mcptools.Skipped{Key: s.Key, Reason: s.Reason, Message: s.Message, RuleID: s.RuleID})
	}
	return out, nil
}

// Search is GET /api/v1/search. With the server unreachable (no answer,
// a timeout; never a refusal) it searches the local folder instead, when
// the search is of its repository or of every one, and says so in the
// note.
func (b *Backend) Search(ctx context.Context, query, repo string, limit int) (mcptools.Found, error) {
	res, err := b.c.Search(ctx, query, client.SearchOptions{Repo: repo, Limit: limit})
	if b.local.Dir != "" && (repo == "" || repo == b.local.Repo) && client.IsUnreachable(err) {
		return b.searchLocal(query, limit, err)
	}
	if err != nil {
		return mcptools.Found{}, mark(err)
	}
	out := make([]mcptools.Hit, 0, len(res.Results))
	for _, r := range res.Results {
		out = append(out, mcptools.Hit{Repo: r.Repo, Key: r.Key, Snippet: r.Snippet.Text})
	}
	return mcptools.Found{Hits: out}, nil
}

// searchLocal is Search over the local folder, the server being
// unreachable (cause).
func (b *Backend) searchLocal(query string, limit int, cause error) (mcptools.Found, error) {
	hits, err := localsearch.Search(b.local.Dir, query, limit, b.local.Exclude...)
	if err != nil {
		return mcptools.Found{}, fmt.Errorf("%w; the local folder %s cannot be searched either: %w", mark(cause), b.local.Dir, err)
	}
	out := mcptools.Found{Hits: make([]mcptools.Hit, 0, len(hits)),
		Note: localsearch.Note(cmp.Or(b.local.Kind, "memory folder"), b.local.Dir, cause)}
	for _, h := range hits {
		out.Hits = append(out.Hits, mcptools.Hit{Repo: b.local.Repo, Key: h.Key, Snippet: h.Snippet})
	}
	return out, nil
}

// statusKinds are the answers of the server the caller can act on.
var statusKinds = []mcptools.Kind{
	{Cause: client.ErrForbidden, Kind: mcptools.ErrForbidden},
	{Cause: client.ErrNotFound, Kind: mcptools.ErrNotFound},
	{Cause: client.ErrPreconditionFailed, Kind: mcptools.ErrConflict},
	{Cause: client.ErrBadRequest, Kind: mcptools.ErrInvalid},
	{Cause: client.ErrTooLarge, Kind: mcptools.ErrInvalid},
	{Cause: client.ErrUnprocessable, Kind: mcptools.ErrInvalid},
	{Cause: client.ErrConflict, Kind: mcptools.ErrInvalid},
}

// mark gives a client error the kind the tools tell apart.
func mark(err error) error {
	marked, _ := mcptools.MarkKind(err, statusKinds)
	return marked
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// Health reads a repository's health.
func (b *Backend) Health(ctx context.Context, repo string) (mcptools.Health, error) {
	h, err := b.c.Health(ctx, repo)
	if err != nil {
		return mcptools.Health{}, mark(err)
	}
	at, _ := time.Parse(time.RFC3339, h.CheckedAt)
	out := mcptools.Health{Repo: h.Repo, Version: h.Version, CheckedAt: at, Findings: make([]mcptools.HealthFinding, len(h.Findings))}
	for i, f := range h.Findings {
		out.Findings[i] = mcptools.HealthFinding{Kind: f.Kind, Keys: f.Keys, Detail: f.Detail, Suggestion: f.Suggestion}
		if f.Score != nil {
			out.Findings[i].Score = *f.Score
		}
	}
	return out, nil
}
