package client_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/memcore/protocol"
)

// Tokens the fake server knows.
const (
	tokenWriter = "tok-writer-secret"
	tokenOther  = "tok-other-secret" // valid, but no grant on any repo
)

// fakeServer emulates the protocol's statuses and headers (spec/protocol.md)
// for one organisation, in memory: enough to drive every Client method
// through a real HTTP server. The real server's end-to-end test replaces it
// once the server exists.
type fakeServer struct {
	url        string
	maxEntries int

	mu       sync.Mutex
	repos    map[string]*fakeRepo
	requests []*http.Request // every request received, in order
}

// fakeRepo is one repository's state.
type fakeRepo struct {
	version   int64
	entries   map[string]string
	deleted   map[string]int64
	revisions map[string][]api.Revision
	contents  map[string]map[int64]string // key → version → content
}

// newFakeServer starts a fakeServer, closed at the end of the test, and a
// Client with tokenWriter pointing at it.
func newFakeServer(t *testing.T) (*fakeServer, *client.Client) {
	t.Helper()
	f := &fakeServer{maxEntries: 3, repos: map[string]*fakeRepo{}}
	mux := http.NewServeMux()
	for _, p := range []string{api.PathTeamMemory, api.PathTeamMemoryAlias} {
		mux.HandleFunc("GET "+p, f.auth(f.get))
		mux.HandleFunc("PUT "+p, f.auth(f.put))
	}
	mux.HandleFunc("GET "+api.PathHistory, f.auth(f.history))
	mux.HandleFunc("GET "+api.PathRevision, f.auth(f.revision))
	mux.HandleFunc("GET "+api.PathRepos, f.auth(f.list))
	mux.HandleFunc("GET "+api.PathHealthz, f.health)
	mux.HandleFunc("GET "+api.PathReadyz, f.health)
	srv := httptest.NewServer(f.record(mux))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f, newClient(t, srv.URL, tokenWriter)
}

// newClient returns a Client for url with token, failing the test on error.
func newClient(t *testing.T, url, token string) *client.Client {
	t.Helper()
	c, err := client.New(client.Options{BaseURL: url, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// record keeps a copy of every request.
func (f *fakeServer) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Clone(r.Context()))
		f.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// lastRequest returns the last request received.
func (f *fakeServer) lastRequest() *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[len(f.requests)-1]
}

// auth answers 401 without tokenWriter or tokenOther, 403 for tokenOther.
func (f *fakeServer) auth(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get("Authorization") {
		case "Bearer " + tokenWriter:
			f.mu.Lock()
			defer f.mu.Unlock()
			next(w, r)
		case "Bearer " + tokenOther:
			writeError(w, 403, api.TypePermission, api.CodeForbidden, "This token has no grant for this repository.", nil)
		default:
			writeError(w, 401, api.TypeAuthentication, api.CodeUnauthenticated, "Missing or invalid bearer token.", nil)
		}
	}
}

// repo returns the canonical (lower-cased) repo of r, answering 400 when absent.
func repoOf(w http.ResponseWriter, r *http.Request) (string, bool) {
	repo := strings.ToLower(r.URL.Query().Get("repo"))
	if strings.Count(repo, "/") < 1 {
		writeError(w, 400, api.TypeInvalidRequest, api.CodeInvalidRepo, "The repo parameter is not a valid slug.", nil)
		return "", false
	}
	return repo, true
}

func (f *fakeServer) get(w http.ResponseWriter, r *http.Request) {
	name, ok := repoOf(w, r)
	if !ok {
		return
	}
	repo := f.repos[name]
	if repo == nil {
		writeError(w, 404, api.TypeNotFound, api.CodeNotFound, "This repository has no team memory yet.", nil)
		return
	}
	sum := repo.checksum()
	w.Header().Set("ETag", api.ETag(sum))
	if api.ETagMatches(r.Header.Get("If-None-Match"), sum, true) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if r.URL.Query().Get("view") == "hashes" {
		writeJSON(w, 200, api.Hashes{Version: repo.version, Checksum: sum, EntryChecksums: repo.entryChecksums(), DeletedEntries: repo.deleted})
		return
	}
	if r.URL.Query().Get("since") == "1" {
		writeError(w, 410, api.TypeInvalidRequest, api.CodeSinceTooOld, "History for that version was pruned; pull in full.", nil)
		return
	}
	writeJSON(w, 200, api.TeamMemory{
		OrganizationID: "acme-org", Repo: name, Version: repo.version, LastModified: "2026-01-02T03:04:05.000Z",
		Checksum: sum, Content: api.Content{Entries: repo.entries, EntryChecksums: repo.entryChecksums(), DeletedEntries: repo.deleted},
	})
}

func (f *fakeServer) put(w http.ResponseWriter, r *http.Request) {
	name, ok := repoOf(w, r)
	if !ok {
		return
	}
	var req api.PutRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, 400, api.TypeInvalidRequest, api.CodeInvalidBody, "The body is not valid JSON.", nil)
		return
	}
	repo := f.repos[name]
	if im := r.Header.Get("If-Match"); im != "" {
		if repo == nil || !api.ETagMatches(im, repo.checksum(), true) {
			cur := ""
			if repo != nil {
				cur = repo.checksum()
			}
			writeError(w, 412, api.TypeConflict, api.CodeETagMismatch, "The team memory changed; pull and retry.", map[string]any{"checksum": cur})
			return
		}
	}
	for k, v := range req.Entries {
		if strings.Contains(v, "AKIA") {
			writeError(w, 422, api.TypeInvalidRequest, api.CodeSecretDetected, "An entry holds a credential.",
				map[string]any{"key": k, "rule_id": "aws-access-key", "label": "AWS access key"})
			return
		}
	}
	if repo == nil {
		repo = &fakeRepo{entries: map[string]string{}, deleted: map[string]int64{}, revisions: map[string][]api.Revision{}, contents: map[string]map[int64]string{}}
	}
	if n := repo.liveAfter(req); n > f.maxEntries {
		writeError(w, 413, api.TypeInvalidRequest, api.CodeTooManyEntries, "Too many entries.",
			map[string]any{"max_entries": f.maxEntries, "received_entries": n})
		return
	}
	f.repos[name] = repo
	resp := repo.apply(req)
	w.Header().Set("ETag", api.ETag(resp.Checksum))
	writeJSON(w, 200, resp)
}

func (f *fakeServer) history(w http.ResponseWriter, r *http.Request) {
	name, _ := repoOf(w, r)
	q := r.URL.Query()
	repo := f.repos[name]
	if repo == nil || len(repo.revisions[q.Get("key")]) == 0 {
		writeError(w, 404, api.TypeNotFound, api.CodeNotFound, "That key has no history.", nil)
		return
	}
	revs := slices.Clone(repo.revisions[q.Get("key")])
	slices.Reverse(revs)
	if before, _ := strconv.ParseInt(q.Get("before"), 10, 64); before > 0 {
		revs = slices.DeleteFunc(revs, func(r api.Revision) bool { return r.Version >= before })
	}
	if limit, _ := strconv.Atoi(q.Get("limit")); limit > 0 && limit < len(revs) {
		revs = revs[:limit]
	}
	writeJSON(w, 200, api.History{Repo: name, Key: q.Get("key"), Revisions: revs})
}

func (f *fakeServer) revision(w http.ResponseWriter, r *http.Request) {
	name, _ := repoOf(w, r)
	q := r.URL.Query()
	v, _ := strconv.ParseInt(q.Get("version"), 10, 64)
	repo := f.repos[name]
	if repo == nil {
		writeError(w, 404, api.TypeNotFound, api.CodeNotFound, "No such revision.", nil)
		return
	}
	for _, rev := range repo.revisions[q.Get("key")] {
		if rev.Version == v {
			writeJSON(w, 200, api.RevisionContent{Repo: name, Key: q.Get("key"), Version: v, Op: rev.Op,
				Checksum: rev.Checksum, Author: rev.Author, At: rev.At, Content: repo.contents[q.Get("key")][v]})
			return
		}
	}
	writeError(w, 404, api.TypeNotFound, api.CodeNotFound, "No such revision.", nil)
}

func (f *fakeServer) list(w http.ResponseWriter, _ *http.Request) {
	var l api.RepoList
	for name, repo := range f.repos {
		l.Repos = append(l.Repos, api.RepoInfo{Repo: name, Version: repo.version, Entries: len(repo.entries)})
	}
	slices.SortFunc(l.Repos, func(a, b api.RepoInfo) int { return strings.Compare(a.Repo, b.Repo) })
	writeJSON(w, 200, l)
}

func (f *fakeServer) health(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, 200, api.Health{Status: "ok"})
}

// liveAfter counts the live entries req would leave.
func (repo *fakeRepo) liveAfter(req api.PutRequest) int {
	live := map[string]bool{}
	for k := range repo.entries {
		live[k] = true
	}
	for k := range req.Entries {
		live[k] = true
	}
	for _, k := range req.SoftDeleteKeys {
		delete(live, k)
	}
	return len(live)
}

// apply upserts and deletes, bumping the version once if anything changed.
func (repo *fakeRepo) apply(req api.PutRequest) api.PutResponse {
	resp := api.PutResponse{Changed: []string{}, Deleted: []string{}}
	next := repo.version + 1
	for k, v := range req.Entries {
		if old, ok := repo.entries[k]; !ok || old != v {
			repo.entries[k] = v
			delete(repo.deleted, k)
			resp.Changed = append(resp.Changed, k)
			repo.addRevision(k, next, api.OpPut, v)
		}
	}
	for _, k := range req.SoftDeleteKeys {
		if _, ok := repo.entries[k]; ok {
			delete(repo.entries, k)
			repo.deleted[k] = 1767322800000
			resp.Deleted = append(resp.Deleted, k)
			repo.addRevision(k, next, api.OpDelete, "")
		}
	}
	if len(resp.Changed)+len(resp.Deleted) > 0 {
		repo.version = next
	}
	slices.Sort(resp.Changed)
	resp.Checksum, resp.Version, resp.LastModified = repo.checksum(), repo.version, "2026-01-02T03:04:05.000Z"
	return resp
}

func (repo *fakeRepo) addRevision(key string, version int64, op, content string) {
	sum := entryChecksum(content)
	repo.revisions[key] = append(repo.revisions[key], api.Revision{Version: version, Op: op, Checksum: sum,
		Size: int64(len(content)), Author: "writer", At: "2026-01-02T03:04:05.000Z"})
	if repo.contents[key] == nil {
		repo.contents[key] = map[int64]string{}
	}
	repo.contents[key][version] = content
}

func (repo *fakeRepo) entryChecksums() map[string]string {
	sums := map[string]string{}
	for k, v := range repo.entries {
		sums[k] = entryChecksum(v)
	}
	return sums
}

// checksum is the dataset checksum of protocol §3.
func (repo *fakeRepo) checksum() string { return protocol.DatasetChecksum(repo.entryChecksums()) }

func entryChecksum(s string) string { return protocol.EntryChecksum([]byte(s)) }

// writeError writes the error envelope of protocol §5 with a request id.
func writeError(w http.ResponseWriter, status int, typ, code, msg string, details map[string]any) {
	d := map[string]any{"error_code": code, "request_id": "req-" + strconv.Itoa(status)}
	for k, v := range details {
		d[k] = v
	}
	writeJSON(w, status, api.ErrorEnvelope{Error: api.ErrorBody{Type: typ, Message: msg, Details: d}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
