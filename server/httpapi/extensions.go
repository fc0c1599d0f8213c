package httpapi

import (
	"context"
	"net/http"
	"net/url"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/events"
	"github.com/teammem/teammem/server/httpkit"
)

// maxHistoryLimit is the largest page of revisions a history request gets.
const maxHistoryLimit = 1000

// pageRequest is what a paged listing (history, activity) was asked for.
type pageRequest struct {
	query  url.Values
	repo   string // as asked
	canon  string // its canonical form, for the answer
	limit  int    // 0 (the listing's default) up to the listing's maximum
	before int64  // 0 for the newest page
}

// readPage reads the repository, limit and before of a paged listing from
// r's query, a larger limit capped at maxLimit, and names the repository
// in r's log line.
func readPage(r *http.Request, maxLimit int) (pageRequest, error) {
	q := r.URL.Query()
	p := pageRequest{query: q, repo: q.Get("repo")}
	httpkit.SetLogRepo(r, httpkit.LogRepo(p.repo))
	limit, err := httpkit.OptionalInt(q, "limit")
	if err != nil {
		return p, err
	}
	if p.before, err = httpkit.OptionalInt(q, "before"); err != nil {
		return p, err
	}
	p.limit = int(min(limit, int64(maxLimit)))
	p.canon, _ = server.CanonicalRepo(p.repo)
	return p, nil
}

// getHistory serves GET .../history?repo=R&key=K[&limit=N&before=V].
func (h *handler) getHistory(w http.ResponseWriter, r *http.Request) error {
	p, err := readPage(r, maxHistoryLimit)
	if err != nil {
		return err
	}
	key := p.query.Get("key")
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	revs, err := h.svc.History(ctx, httpkit.Principal(ctx), p.repo, key, p.before, p.limit)
	if err != nil {
		return err
	}
	out := api.History{Repo: p.canon, Key: key, Revisions: make([]api.Revision, 0, len(revs))}
	for _, rv := range revs {
		out.Revisions = append(out.Revisions, api.Revision{Version: rv.Version, Op: string(rv.Op), Checksum: rv.Checksum,
			Size: rv.Size, Author: rv.Author, At: formatTime(rv.At), RestoreOf: rv.RestoreOf, Provenance: wireProvenance(rv.Provenance)})
	}
	httpkit.WriteJSON(w, http.StatusOK, out)
	return nil
}

// getRevision serves GET .../revision?repo=R&key=K&version=V.
func (h *handler) getRevision(w http.ResponseWriter, r *http.Request) error {
	repo, key, version, err := keyVersion(r)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	rv, err := h.svc.Revision(ctx, httpkit.Principal(ctx), repo, key, version)
	if err != nil {
		return err
	}
	httpkit.WriteJSON(w, http.StatusOK, api.RevisionContent{Repo: rv.Repo, Key: rv.Key, Version: rv.Version, Op: string(rv.Op),
		Checksum: rv.Checksum, Author: rv.Author, At: formatTime(rv.At), Content: rv.Content,
		Provenance: wireProvenance(rv.Provenance)})
	return nil
}

// getRepos serves GET /api/v1/repos: the repositories the token can read.
func (h *handler) getRepos(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	repos, err := h.svc.Repos(ctx, httpkit.Principal(ctx))
	if err != nil {
		return err
	}
	out := api.RepoList{Repos: make([]api.RepoInfo, 0, len(repos))}
	for _, s := range repos {
		out.Repos = append(out.Repos, api.RepoInfo{Repo: s.Repo, Version: s.Version, Entries: s.Entries, Bytes: s.Bytes, LastModified: formatTime(s.UpdatedAt)})
	}
	httpkit.WriteJSON(w, http.StatusOK, out)
	return nil
}

// getActivity serves GET /api/v1/activity?repo=R[&limit=N&before=V]: one
// item per version, newest first.
func (h *handler) getActivity(w http.ResponseWriter, r *http.Request) error {
	p, err := readPage(r, server.MaxActivityLimit)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	page, err := h.svc.Activity(ctx, httpkit.Principal(ctx), p.repo, p.before, p.limit)
	if err != nil {
		return err
	}
	out := api.Activity{Repo: p.canon, Items: make([]api.ActivityItem, 0, len(page.Items))}
	for _, it := range page.Items {
		out.Items = append(out.Items, api.ActivityItem{Version: it.Version, At: formatTime(it.At), Author: it.Author,
			Changed: it.Changed, Deleted: it.Deleted, RestoreOf: it.Restores, Provenance: wireProvenance(it.Provenance)})
	}
	if page.Next > 0 {
		out.Next = &page.Next
	}
	httpkit.WriteJSON(w, http.StatusOK, out)
	return nil
}

// healthz answers while the process is up.
func (h *handler) healthz(w http.ResponseWriter, r *http.Request) {
	httpkit.WriteJSON(w, http.StatusOK, api.Health{Status: "ok"})
}

// readyz answers 200 when the store is reachable, its schema current and
// the events hub receives the other servers' notices.
func (h *handler) readyz(extra func() error, hub *events.Hub) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*1e9)
		defer cancel()
		err := h.svc.Store().Ping(ctx)
		if err == nil && extra != nil {
			err = extra()
		}
		if err == nil && hub != nil {
			err = hub.Ready()
		}
		if err != nil {
			w.Header().Set("Retry-After", "1")
			httpkit.WriteJSON(w, http.StatusServiceUnavailable, api.Health{Status: "unavailable", Error: "storage is not ready"})
			return
		}
		httpkit.WriteJSON(w, http.StatusOK, api.Health{Status: "ok"})
	}
}

// keyVersion reads the repo, key and optional version of a request about
// one revision of a key (revision, blame), naming the repo in the log.
func keyVersion(r *http.Request) (repo, key string, version int64, err error) {
	q := r.URL.Query()
	repo, key = q.Get("repo"), q.Get("key")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	version, err = httpkit.OptionalInt(q, "version")
	return repo, key, version, err
}
