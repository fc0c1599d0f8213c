package httpapi

import (
	"context"
	"net/http"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/blame"
	"github.com/teammem/teammem/server/httpkit"
)

// getBlame serves GET /api/v1/blame?repo=R&key=K[&version=V]: every line
// of the key at its newest revision at or before V, with the revision
// that introduced it.
func (h *handler) getBlame(w http.ResponseWriter, r *http.Request) error {
	repo, key, version, err := keyVersion(r)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	b, err := blame.Of(ctx, h.svc, httpkit.Principal(ctx), repo, key, version)
	if err != nil {
		return err
	}
	out := api.Blame{Repo: b.Revision.Repo, Key: b.Revision.Key, Version: b.Revision.Version, Op: string(b.Revision.Op),
		Lines: make([]api.BlameLine, len(b.Lines)), Revisions: make([]api.BlameRevision, len(b.Origins))}
	for i, l := range b.Lines {
		out.Lines[i] = api.BlameLine{Text: l.Text, Version: l.Version}
	}
	for i, o := range b.Origins {
		out.Revisions[i] = api.BlameRevision{Version: o.Version, Author: o.Author, At: formatTime(o.At),
			Provenance: *wireProvenance(o.Provenance)}
	}
	httpkit.WriteJSON(w, http.StatusOK, out)
	return nil
}

// wireProvenance is a version's provenance on the wire.
func wireProvenance(p server.Provenance) *api.Provenance {
	return &api.Provenance{Subject: p.Subject, DisplayName: p.DisplayName, Credential: p.Credential,
		Surface: string(p.Surface), Client: p.Client, Machine: p.Machine, Commit: p.Commit,
		ApprovedBy: p.ApprovedBy, Proposal: p.Proposal}
}
