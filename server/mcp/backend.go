package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/teammem/teammem/mcptools"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
)

// backend is mcptools.Backend over the Service, for one caller: every call
// goes through the Service's authorization, validation, limits and secret
// scanner, as a REST request would.
type backend struct {
	svc    *server.Service
	health *health.Checker
	log    *slog.Logger
	// caller returns the caller of the HTTP request a call came in (its
	// context carries it) and the request's id.
	caller func(context.Context) (server.Principal, string)
}

var _ mcptools.Backend = (*backend)(nil)

func (b *backend) principal(ctx context.Context) server.Principal {
	p, _ := b.caller(ctx)
	return p
}

func (b *backend) requestID(ctx context.Context) string {
	_, id := b.caller(ctx)
	return id
}

func (b *backend) State(ctx context.Context, repo string) (mcptools.State, error) {
	snap, err := b.svc.Snapshot(ctx, b.principal(ctx), repo, server.ReadOptions{})
	if errors.Is(err, server.ErrNotFound) {
		return mcptools.State{Repo: repo}, nil
	}
	if err != nil {
		return mcptools.State{}, b.fail(ctx, "read state", err)
	}
	b.svc.RecordServed(b.principal(ctx), snap.Repo, snap.Version, server.ServedMCP)
	st := mcptools.State{Repo: snap.Repo, Version: snap.Version, Checksum: snap.Checksum, Entries: make(map[string]string, len(snap.Live))}
	for _, e := range snap.Live {
		st.Entries[e.Key] = e.Checksum
	}
	return st, nil
}

func (b *backend) List(ctx context.Context, repo string) ([]mcptools.Entry, error) {
	snap, err := b.svc.Snapshot(ctx, b.principal(ctx), repo, server.ReadOptions{WithContent: true})
	if errors.Is(err, server.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, b.fail(ctx, "list", err)
	}
	authors, err := b.svc.LastAuthors(ctx, b.principal(ctx), repo)
	if err != nil {
		return nil, b.fail(ctx, "list authors", err)
	}
	out := make([]mcptools.Entry, 0, len(snap.Live))
	keys := make([]string, 0, len(snap.Live))
	for _, e := range snap.Live {
		out = append(out, mcptools.Entry{Key: e.Key, Checksum: e.Checksum, Size: e.Size, Content: e.Content, Author: authors[e.Key], At: e.UpdatedAt})
		keys = append(keys, e.Key)
	}
	b.svc.RecordServed(b.principal(ctx), snap.Repo, snap.Version, server.ServedMCP, keys...)
	return out, nil
}

func (b *backend) History(ctx context.Context, repo, key string, limit int) ([]mcptools.Revision, error) {
	revs, err := b.svc.History(ctx, b.principal(ctx), repo, key, 0, limit)
	if errors.Is(err, server.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, b.fail(ctx, "read history", err)
	}
	out := make([]mcptools.Revision, 0, len(revs))
	for _, r := range revs {
		out = append(out, revision(r))
	}
	return out, nil
}

func (b *backend) Revision(ctx context.Context, repo, key string, version int64) (mcptools.Revision, error) {
	r, err := b.svc.Revision(ctx, b.principal(ctx), repo, key, version)
	if errors.Is(err, server.ErrNotFound) {
		if version == 0 {
			return mcptools.Revision{}, mcptools.Mark(fmt.Errorf("%q has no revision", key), mcptools.ErrNotFound)
		}
		return mcptools.Revision{}, mcptools.Mark(fmt.Errorf("%q has no revision at version %d", key, version), mcptools.ErrNotFound)
	}
	if err != nil {
		return mcptools.Revision{}, b.fail(ctx, "read revision", err)
	}
	b.svc.RecordServed(b.principal(ctx), r.Repo, r.Version, server.ServedMCP, key)
	return revision(r), nil
}

// servedHits records the keys a search returned, per repository, each
// repository at the newest version among its hits.
func (b *backend) servedHits(ctx context.Context, hits []server.SearchResult) {
	type served struct {
		version int64
		keys    []string
	}
	byRepo := map[string]*served{}
	var order []string
	for _, h := range hits {
		s := byRepo[h.Repo]
		if s == nil {
			s = &served{}
			byRepo[h.Repo] = s
			order = append(order, h.Repo)
		}
		s.version = max(s.version, h.Version)
		s.keys = append(s.keys, h.Key)
	}
	p := b.principal(ctx)
	for _, repo := range order {
		b.svc.RecordServed(p, repo, byRepo[repo].version, server.ServedMCP, byRepo[repo].keys...)
	}
}

func revision(r server.Revision) mcptools.Revision {
	return mcptools.Revision{Version: r.Version, Op: string(r.Op), Checksum: r.Checksum, Size: r.Size, Author: r.Author, At: r.At, Content: r.Content,
		Provenance: provenance(r.Provenance)}
}

// provenance is a version's provenance for the tools.
func provenance(p server.Provenance) *mcptools.Provenance {
	return &mcptools.Provenance{Subject: p.Subject, DisplayName: p.DisplayName, Credential: p.Credential, Surface: string(p.Surface),
		Client: p.Client, Machine: p.Machine, Commit: p.Commit}
}

func (b *backend) Activity(ctx context.Context, repo string, limit int) ([]mcptools.Change, error) {
	page, err := b.svc.Activity(ctx, b.principal(ctx), repo, 0, limit)
	if errors.Is(err, server.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, b.fail(ctx, "read activity", err)
	}
	out := make([]mcptools.Change, 0, len(page.Items))
	for _, it := range page.Items {
		out = append(out, mcptools.Change{Version: it.Version, At: it.At, Author: it.Author, Changed: it.Changed, Deleted: it.Deleted,
			Provenance: provenance(it.Provenance)})
	}
	return out, nil
}

func (b *backend) Write(ctx context.Context, repo string, w mcptools.Write) (mcptools.WriteResult, error) {
	in := server.PutInput{Entries: w.Entries, Deletes: w.Deletes, AllOrNothing: w.AllOrNothing,
		Provenance: server.Provenance{Surface: server.SurfaceMCP, Client: clientOf(ctx)}}
	switch w.IfMatch {
	case "":
	case mcptools.CreateOnly:
		in.IfNoneMatch = server.AnyTag()
	default:
		in.IfMatch = server.TagList(w.IfMatch)
	}
	res, err := b.svc.Put(ctx, b.principal(ctx), repo, in)
	if err != nil {
		return mcptools.WriteResult{}, b.fail(ctx, "write", err)
	}
	out := mcptools.WriteResult{Version: res.State.Version, Checksum: res.State.Checksum, Changed: res.Changed, Deleted: res.Deleted}
	if res.Proposal != nil {
		out.Proposal = res.Proposal.ID
	}
	for _, s := range res.Skipped {
		out.Skipped = append(out.Skipped, mcptools.Skipped{Key: s.Key, Reason: string(s.Reason), Message: s.Message, RuleID: s.RuleID})
	}
	return out, nil
}

// domainKinds are the domain's errors the caller can act on.
var domainKinds = []mcptools.Kind{
	{Cause: server.ErrForbidden, Kind: mcptools.ErrForbidden},
	{Cause: server.ErrNotFound, Kind: mcptools.ErrNotFound},
	{Cause: server.ErrPreconditionFailed, Kind: mcptools.ErrConflict},
	{Cause: server.ErrInvalid, Kind: mcptools.ErrInvalid},
	{Cause: server.ErrTooManyEntries, Kind: mcptools.ErrInvalid},
	{Cause: server.ErrRepoTooLarge, Kind: mcptools.ErrInvalid},
	{Cause: server.ErrKeyCollision, Kind: mcptools.ErrInvalid},
	{Cause: server.ErrSinceTooOld, Kind: mcptools.ErrInvalid},
	{Cause: server.ErrConflict, Kind: mcptools.ErrConflict},
}

// fail marks a domain error with its kind, keeping its message (written
// for the caller, never holding content); any other error of a call whose
// context has not ended is logged and answered without its internals.
func (b *backend) fail(ctx context.Context, op string, err error) error {
	if marked, ok := mcptools.MarkKind(err, domainKinds); ok {
		return marked
	}
	if ctx.Err() != nil {
		// The call's deadline passed (mcptools words it) or its client
		// went away: no failure of the server's.
		return err
	}
	b.log.ErrorContext(ctx, "mcp tool failed", slog.String("op", op), slog.String("request_id", b.requestID(ctx)), slog.String("error", err.Error()))
	if errors.Is(err, server.ErrUnavailable) {
		return fmt.Errorf("the server's store is unavailable; try again shortly (request %s)", b.requestID(ctx))
	}
	return fmt.Errorf("the server failed to %s (request %s)", op, b.requestID(ctx))
}

// Search is the Service's search for the caller: q.Repo alone,
// or every repository the caller can read.
func (b *backend) Search(ctx context.Context, query, repo string, limit int) (mcptools.Found, error) {
	page, err := b.svc.Search(ctx, b.principal(ctx), server.SearchQuery{Text: query, Repo: repo, Limit: limit})
	if err != nil {
		return mcptools.Found{}, b.fail(ctx, "search", err)
	}
	out := make([]mcptools.Hit, 0, len(page.Results))
	for _, r := range page.Results {
		out = append(out, mcptools.Hit{Repo: r.Repo, Key: r.Key, Snippet: r.Snippet.Text})
	}
	b.servedHits(ctx, page.Results)
	return mcptools.Found{Hits: out}, nil
}

func (b *backend) Health(ctx context.Context, repo string) (mcptools.Health, error) {
	rep, err := b.health.Report(ctx, b.principal(ctx), repo)
	if err != nil {
		return mcptools.Health{}, b.fail(ctx, "check health", err)
	}
	out := mcptools.Health{Repo: rep.Repo, Version: rep.Version, CheckedAt: rep.CheckedAt, Findings: make([]mcptools.HealthFinding, len(rep.Findings))}
	for i, f := range rep.Findings {
		out.Findings[i] = mcptools.HealthFinding{Kind: f.Kind, Keys: f.Keys, Detail: f.Detail, Score: f.Score, Suggestion: f.Suggestion}
	}
	return out, nil
}
