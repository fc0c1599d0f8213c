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

// getServer serves GET /api/v1/server: the server's identity, without
// authentication (every answer carries it in api.HeaderServerID anyway).
func (h *handler) getServer(w http.ResponseWriter, r *http.Request) {
	httpkit.WriteJSON(w, http.StatusOK, api.ServerInfo{ServerID: h.svc.ServerID()})
}

// getWhoami serves GET /api/v1/whoami: the authenticated caller's subject,
// grants and expiry, so a client can tell whose name its writes carry and
// when its credential runs out.
func (h *handler) getWhoami(w http.ResponseWriter, r *http.Request) error {
	p := httpkit.Principal(r.Context())
	out := api.Whoami{Subject: p.Subject, Grants: server.GrantStrings(p.Grants)}
	if !p.Expires.IsZero() {
		out.ExpiresAt = p.Expires.UTC().Format(time.RFC3339)
	}
	httpkit.WriteJSON(w, http.StatusOK, out)
	return nil
}

// postSeen serves POST /api/v1/seen?repo=R: which of the checksums asked
// about each key its history holds (see server.Service.SeenChecksums).
func (h *handler) postSeen(w http.ResponseWriter, r *http.Request) error {
	repo := r.URL.Query().Get("repo")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	body, err := readBody(w, r, h.svc.Limits().MaxBodyBytes)
	if err != nil {
		return err
	}
	var in api.SeenRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return server.InvalidBody("the request body is not a JSON object of entries: %v", err)
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	seen, err := h.svc.SeenChecksums(ctx, httpkit.Principal(ctx), repo, in.Entries)
	if err != nil {
		return err
	}
	canon, _ := server.CanonicalRepo(repo)
	httpkit.WriteJSON(w, http.StatusOK, api.SeenResponse{Repo: canon, Seen: seen})
	return nil
}
