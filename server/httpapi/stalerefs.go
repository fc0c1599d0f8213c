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
	rep := server.StaleReportInput{Commit: in.Commit, Branch: in.Branch, Entries: make(map[string]server.StaleEntryInput, len(in.Entries))}
	if in.CommittedAt != "" {
		if rep.CommittedAt, err = time.Parse(time.RFC3339, in.CommittedAt); err != nil {
			return server.InvalidBody("committedAt %.80q is not an RFC 3339 time", in.CommittedAt)
		}
	}
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
// the verdict of each live entry.
func (h *handler) getStaleReferences(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	repo := q.Get("repo")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	verdicts, err := h.svc.StaleReports(ctx, httpkit.Principal(ctx), repo, q.Get("key"))
	if err != nil {
		return err
	}
	canon, _ := server.CanonicalRepo(repo)
	out := api.StaleReports{Repo: canon, Reports: make([]api.StaleEntryReport, len(verdicts))}
	for i, v := range verdicts {
		fs := make([]api.StaleFinding, len(v.Findings))
		for j, f := range v.Findings {
			fs[j] = api.StaleFinding(f)
		}
		out.Reports[i] = api.StaleEntryReport{Key: v.Key, Version: v.Version, Current: v.Current, Commit: v.Commit,
			CommittedAt: wireTime(v.CommittedAt), Branch: v.Branch, Reporter: v.Reporter, ReportedAt: wireTime(v.At),
			Findings: fs, Others: make([]api.StaleOtherReport, len(v.Others))}
		for j, o := range v.Others {
			out.Reports[i].Others[j] = api.StaleOtherReport{Commit: o.Commit, CommittedAt: wireTime(o.CommittedAt), Branch: o.Branch,
				Reporter: o.Reporter, ReportedAt: wireTime(o.At), Version: o.Version, Stale: len(o.Findings), Standing: string(o.Standing)}
		}
	}
	httpkit.WriteJSON(w, http.StatusOK, out)
	return nil
}

// wireTime is t in RFC 3339, UTC; "" for the zero time.
func wireTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
