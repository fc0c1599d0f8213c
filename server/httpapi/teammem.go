package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// getTeamMemory serves GET ?repo=R[&view=hashes][&since=V]: pull, hashes
// probe or delta. Every request first reads the repository's summary row
// only: a matching If-None-Match is answered 304 from it, and a full or
// hashes body already encoded at that version is served from the cache
// without reading any entry.
func (h *handler) getTeamMemory(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	repo := q.Get("repo")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	view := q.Get("view")
	if view != "" && view != "hashes" {
		return server.InvalidParameter("view must be \"hashes\" or absent, got %q", truncate(view))
	}
	since, err := httpkit.OptionalInt(q, "since")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	p := httpkit.Principal(ctx)
	st, err := h.svc.State(ctx, p, repo)
	if err != nil {
		return err
	}
	if inm := headerList(r, "If-None-Match"); inm != "" && api.ETagMatches(inm, st.Checksum, true) {
		w.Header().Set("ETag", api.ETag(st.Checksum))
		w.WriteHeader(http.StatusNotModified)
		h.served(p, st, view, 0)
		return nil
	}
	if since > st.Version { // a restored or foreign server: the client must pull in full
		return fmt.Errorf("since %d is newer than version %d: %w", since, st.Version, server.ErrSinceTooOld)
	}
	key := cacheKey{repo: st.Repo, view: view}
	if since == 0 {
		if body, ok := h.bodies.get(key, st.Version, st.Checksum); ok {
			h.writeBody(w, r, key, st.Version, st.Checksum, body)
			h.served(p, st, view, 0)
			return nil
		}
	}
	if view == "" && since == 0 && st.Bytes > h.streamAbove() {
		if err := h.streamFull(ctx, w, r, p, repo); err != nil {
			return err
		}
		h.served(p, st, view, 0)
		return nil
	}
	read := func() ([]byte, string, error) {
		// A shared read must not fail for the others when its first
		// caller goes away: detach it from that caller's cancellation.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.timeout)
		defer cancel()
		snap, err := h.svc.Snapshot(rctx, p, repo, server.ReadOptions{WithContent: view == "", Since: since, Current: &st})
		if err != nil {
			return nil, "", err
		}
		body, err := h.encodeSnapshot(snap, view)
		if err != nil {
			return nil, "", err
		}
		if since == 0 {
			h.bodies.put(key, snap.Version, snap.Checksum, body)
		}
		return body, snap.Checksum, nil
	}
	var body []byte
	var sum string
	if since == 0 { // callers that missed the cache at this version share one read
		body, sum, err = h.flights.do(flightKey{key, st.Version}, read)
	} else {
		body, sum, err = read()
		key = cacheKey{} // a delta is never cached
	}
	if err != nil {
		return err
	}
	h.writeBody(w, r, key, st.Version, sum, body)
	h.served(p, st, view, since)
	return nil
}

// served records that p was served st (a pull, or a delta since a
// version); a hashes probe carries no content and is not recorded.
func (h *handler) served(p server.Principal, st server.RepoState, view string, since int64) {
	switch {
	case view != "":
	case since > 0:
		h.svc.RecordServed(p, st.Repo, st.Version, server.ServedDelta)
	default:
		h.svc.RecordServed(p, st.Repo, st.Version, server.ServedPull)
	}
}

// streamAbove is the repository size above which a full GET is streamed
// instead of encoded whole (and cached): bodies the cache would not keep.
func (h *handler) streamAbove() int64 {
	if m := h.bodies.maxBody(); m > 0 {
		return m
	}
	return 1 << 20
}

// streamFull serves a full GET encoded entry by entry as the store reads
// it: memory stays at about one entry whatever the repository's size. A
// failure after the first byte aborts the response (the client sees a
// truncated body, never a complete-looking wrong one).
func (h *handler) streamFull(ctx context.Context, w http.ResponseWriter, r *http.Request, p server.Principal, repo string) error {
	defer h.release.start()()
	s := newFullStream(w, r, h.svc.Org())
	snap, err := h.svc.Snapshot(ctx, p, repo, server.ReadOptions{WithContent: true, Stream: s})
	if err == nil {
		err = s.finish(snap.Deleted)
	}
	if err != nil {
		s.abandon()
		if s.started {
			h.log.LogAttrs(ctx, slog.LevelWarn, "full download ended early", slog.String("request_id", httpkit.RequestID(ctx)), slog.String("error", err.Error()))
			panic(http.ErrAbortHandler)
		}
		return err
	}
	return nil
}

// encodeSnapshot encodes a snapshot as the full or hashes body.
func (h *handler) encodeSnapshot(snap server.Snapshot, view string) ([]byte, error) {
	if view == "hashes" {
		return marshal(api.Hashes{Version: snap.Version, Checksum: snap.Checksum,
			EntryChecksums: entryChecksums(snap.Live), DeletedEntries: deletedEntries(snap.Deleted)})
	}
	var b bytes.Buffer
	size := 512 + 40*len(snap.Deleted)
	for _, e := range snap.Live { // keys twice, content, checksum, quotes; escapes an eighth
		size += 2*len(e.Key) + len(e.Content) + len(e.Checksum) + 12
	}
	b.Grow(size + size/8)
	enc := newBodyEncoder(&b)
	_ = enc.begin(h.svc.Org(), snap.RepoState)
	for _, e := range snap.Live {
		_ = enc.entry(e)
	}
	err := enc.end(snap.Deleted) // a bytes.Buffer never fails
	return b.Bytes(), err
}

// marshal encodes v without HTML escaping: Markdown is full of <, > and &,
// which json.Marshal would turn into six-byte escapes.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeBody writes an encoded 200 JSON body with its ETag, gzipped when
// the client accepts it and the body is worth it (the gzipped form of a
// cached body, named by key, is kept with it).
func (h *handler) writeBody(w http.ResponseWriter, r *http.Request, key cacheKey, version int64, checksum string, body []byte) {
	hd := w.Header()
	hd.Set("ETag", api.ETag(checksum))
	hd.Set("Content-Type", "application/json")
	hd.Add("Vary", "Accept-Encoding")
	if len(body) >= gzipMinBytes && acceptsGzip(r) {
		if key == (cacheKey{}) {
			body = gzipBytes(body)
		} else {
			body = h.bodies.gzipped(key, version, checksum, body)
		}
		hd.Set("Content-Encoding", "gzip")
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

func entryChecksums(live []server.Entry) map[string]string {
	m := make(map[string]string, len(live))
	for _, e := range live {
		m[e.Key] = e.Checksum
	}
	return m
}

func deletedEntries(ts []server.Tombstone) map[string]int64 {
	m := make(map[string]int64, len(ts))
	for _, t := range ts {
		m[t.Key] = t.DeletedAt.UnixMilli()
	}
	return m
}

// putTeamMemory serves PUT ?repo=R: an atomic, optionally conditional push.
func (h *handler) putTeamMemory(w http.ResponseWriter, r *http.Request) error {
	repo := r.URL.Query().Get("repo")
	httpkit.SetLogRepo(r, httpkit.LogRepo(repo))
	prov, err := putClaims(r)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	cond := server.Preconditions{IfMatch: ifMatch(headerList(r, "If-Match")), IfNoneMatch: ifMatch(headerList(r, "If-None-Match"))}
	if err := h.svc.Precondition(ctx, httpkit.Principal(ctx), repo, cond); err != nil {
		return err
	}
	body, err := readBody(w, r, h.svc.Limits().MaxBodyBytes)
	if err != nil {
		return err
	}
	in, err := decodePut(body, h.svc.Limits())
	if err != nil {
		return err
	}
	in.IfMatch, in.IfNoneMatch, in.Provenance = cond.IfMatch, cond.IfNoneMatch, prov
	res, err := h.svc.Put(ctx, httpkit.Principal(ctx), repo, in)
	if err != nil {
		return err
	}
	h.metrics.RecordWrite(in, res)
	h.logSkipped(r, res.Skipped)
	w.Header().Set("ETag", api.ETag(res.State.Checksum))
	listed, omitted := skippedEntries(res.Skipped)
	out := api.PutResponse{
		Checksum: res.State.Checksum, LastModified: formatTime(res.State.UpdatedAt), Version: res.State.Version,
		Changed: nonNil(res.Changed), Deleted: nonNil(res.Deleted), Skipped: listed, SkippedOmitted: omitted,
	}
	if res.Proposal != nil {
		prop := WireProposal(*res.Proposal)
		out.Proposal = &prop
		w.Header().Set(api.HeaderProposal, strconv.FormatInt(prop.ID, 10))
	}
	httpkit.WriteJSON(w, http.StatusOK, out)
	return nil
}

// putClaims returns what a PUT says of itself: the agent surface (or the
// one Teammem-Surface narrows it to), its User-Agent and the agent's
// machine and commit.
func putClaims(r *http.Request) (server.Provenance, error) {
	surface, err := httpkit.AgentSurface(r)
	if err != nil {
		return server.Provenance{}, err
	}
	return httpkit.Claims(r, surface, true)
}

// skippedEntries converts the entries a push left out for the wire: the
// first api.MaxSkippedListed, and the count of the rest.
func skippedEntries(skipped []server.Skipped) (listed []api.SkippedEntry, omitted int) {
	if len(skipped) == 0 {
		return nil, 0
	}
	n := min(len(skipped), api.MaxSkippedListed)
	listed = make([]api.SkippedEntry, n)
	for i, sk := range skipped[:n] {
		listed[i] = api.SkippedEntry{Key: sk.Key, Reason: string(sk.Reason), Message: sk.Message,
			RuleID: sk.RuleID, Label: sk.Label, Existing: sk.Existing}
	}
	return listed, len(skipped) - n
}

// logSkipped counts each entry a push left out and logs the ones the answer
// lists, by key (bounded, quoted by the JSON handler) and reason, never
// content; the rest are one line with their number.
func (h *handler) logSkipped(r *http.Request, skipped []server.Skipped) {
	id, repo := slog.String("request_id", httpkit.RequestID(r.Context())), slog.String("repo", httpkit.LogRepo(r.URL.Query().Get("repo")))
	for i, sk := range skipped {
		h.metrics.EntrySkipped(string(sk.Reason))
		if i < api.MaxSkippedListed {
			h.log.LogAttrs(r.Context(), slog.LevelInfo, "entry skipped", id, repo,
				slog.String("key", truncate(sk.Key)), slog.String("reason", string(sk.Reason)))
		}
	}
	if rest := len(skipped) - api.MaxSkippedListed; rest > 0 {
		h.log.LogAttrs(r.Context(), slog.LevelInfo, "more entries skipped, not listed", id, repo, slog.Int("count", rest))
	}
}

// ifMatch reduces an If-Match or If-None-Match header to what the store
// compares: none when absent, any when it holds *, else the listed
// checksums without quotes or W/. A present header whose tags are all
// empty or unusable names no state, so it matches nothing.
func ifMatch(header string) server.Tags {
	if strings.TrimSpace(header) == "" {
		return server.Tags{}
	}
	var sums []string
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" {
			return server.AnyTag()
		}
		if t := api.ParseETag(tag); t != "" && !strings.Contains(t, ",") {
			sums = append(sums, t)
		}
	}
	return server.TagList(sums...)
}

// headerList joins every line of a list-valued header.
func headerList(r *http.Request, name string) string {
	return strings.Join(r.Header.Values(name), ",")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func truncate(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}
