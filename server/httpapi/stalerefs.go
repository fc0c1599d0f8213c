package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// maxStaleReportBody bounds a report's body: the client's requests of 100
// entries fit at every bound of a finding (64 an entry, 200-byte
// references and paths).
const maxStaleReportBody = 4 << 20

// postStaleReferences serves POST /api/v1/stale-references?repo=R: an
// agent's report of the stale code references of the entries it checked
// (see server.Service.ReportStale).
func (h *handler) postStaleReferences(w http.ResponseWriter, r *http.Request) error {
	repo := r.URL.Query().Get("repo")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	body, err := readBody(w, r, maxStaleReportBody)
	if err != nil {
		return err
	}
	var in api.StaleReportRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return server.InvalidBody("the request body is not a stale-reference report: %v", err)
	}
	rep := server.StaleReportInput{Commit: in.Commit, Entries: make(map[string]server.StaleEntryInput, len(in.Entries))}
	for k, e := range in.Entries {
		fs := make([]server.StaleFinding, len(e.Findings))
		for i, f := range e.Findings {
			fs[i] = server.StaleFinding(f)
		}
		rep.Entries[k] = server.StaleEntryInput{Checksum: e.Checksum, Findings: fs}
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	res, err := h.svc.ReportStale(ctx, httpkit.Principal(ctx), repo, rep)
	if err != nil {
		return err
	}
	canon, _ := server.CanonicalRepo(repo)
	out := api.StaleReportResponse{Repo: canon, Recorded: nonNil(res.Recorded), Skipped: []api.StaleSkippedEntry{}}
	for _, sk := range res.Skipped {
		out.Skipped = append(out.Skipped, api.StaleSkippedEntry{Key: sk.Key, Reason: string(sk.Reason), Message: sk.Message})
	}
	httpkit.WriteJSON(w, http.StatusOK, out)
	return nil
}

// getStaleReferences serves GET /api/v1/stale-references?repo=R[&key=K]:
// the latest report of each live entry.
func (h *handler) getStaleReferences(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	repo := q.Get("repo")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	reports, err := h.svc.StaleReports(ctx, httpkit.Principal(ctx), repo, q.Get("key"))
	if err != nil {
		return err
	}
	canon, _ := server.CanonicalRepo(repo)
	out := api.StaleReports{Repo: canon, Reports: make([]api.StaleEntryReport, len(reports))}
	for i, rp := range reports {
		fs := make([]api.StaleFinding, len(rp.Findings))
		for j, f := range rp.Findings {
			fs[j] = api.StaleFinding(f)
		}
		out.Reports[i] = api.StaleEntryReport{Key: rp.Key, Version: rp.Version, Current: rp.Current, Commit: rp.Commit,
			Reporter: rp.Reporter, ReportedAt: rp.At.UTC().Format(time.RFC3339), Findings: fs}
	}
	httpkit.WriteJSON(w, http.StatusOK, out)
	return nil
}
