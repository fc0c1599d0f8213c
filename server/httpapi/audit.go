package httpapi

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// getAudit serves GET /api/v1/audit?repo=R[&since=T][&after=N][&limit=L]:
// a page of the repository's audit chain, every entry for its admins,
// the caller's own acts for anyone else who can read it.
func (h *handler) getAudit(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	repo := q.Get("repo")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	var read server.AuditRead
	var err error
	if read.After, err = httpkit.OptionalInt(q, "after"); err != nil {
		return err
	}
	limit, err := httpkit.OptionalInt(q, "limit")
	if err != nil {
		return err
	}
	read.Limit = int(min(limit, server.AuditPageLimit+1))
	if s := q.Get("since"); s != "" {
		if read.Since, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return server.InvalidParameter("since must be an RFC 3339 time, got %q", truncate(s))
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	entries, err := h.svc.AuditEntries(ctx, httpkit.Principal(ctx), repo, read)
	if err != nil {
		return err
	}
	page := api.AuditPage{Repo: repo, Entries: make([]api.AuditEntry, len(entries))}
	for i, e := range entries {
		page.Entries[i] = api.AuditEntry{Seq: e.Seq, At: formatTime(e.At), Prev: hex.EncodeToString(e.Prev),
			Hash: hex.EncodeToString(e.Hash), Record: json.RawMessage(e.Body)}
		page.Repo = e.Chain
	}
	if n := len(entries); n > 0 && n == pageSize(read.Limit) {
		page.Next = entries[n-1].Seq
	}
	httpkit.WriteJSON(w, http.StatusOK, page)
	return nil
}

// pageSize is the entries a full page holds.
func pageSize(limit int) int {
	if limit == 0 {
		return server.DefaultAuditPage
	}
	return limit
}
