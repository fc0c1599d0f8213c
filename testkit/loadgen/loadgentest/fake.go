// Package loadgentest is a small in-memory team memory server for testing
// the load generator: GET (full and hashes, If-None-Match), PUT (If-Match,
// entries, soft deletes) of one repository, bearer-token auth, counters, and
// faults to plant. It is a fake, not the real server: it checks no key,
// size or secret rule.
package loadgentest

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/protocol"
)

// Token is the only bearer token the fake accepts.
const Token = "test-token"

// Fake is the server. Set the fault fields before the first request; read
// the counters only after the requests are done. It serializes requests
// with one mutex.
type Fake struct {
	mu      sync.Mutex
	entries map[string]string
	deleted map[string]int64
	version int64

	// Counters.
	Gets, NotModified, PutsOK, MaxPutBody, Gzipped int

	// Faults to plant.
	Fail500Every  int  // every n-th GET answers 500
	IgnoreINM     bool // If-None-Match never matches
	DropAfter     int  // after this many stored PUTs, acknowledge without storing
	SkipBumpEvery int  // every n-th stored PUT does not bump the version (two acks share one)

	// Gzip compresses GET bodies for requests that accept gzip, as the
	// real server does.
	Gzip bool
}

// New starts a Fake on an httptest server closed when the test ends.
func New(t testing.TB) (*Fake, *httptest.Server) {
	f := &Fake{entries: map[string]string{}, deleted: map[string]int64{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

// ServeHTTP answers the team memory resource.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+Token {
		http.Error(w, `{"error":{"type":"authentication_error"}}`, http.StatusUnauthorized)
		return
	}
	if r.URL.Path != api.PathTeamMemory || r.URL.Query().Get("repo") == "" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		f.get(w, r)
	case http.MethodPut:
		f.put(w, r)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

func (f *Fake) sums() map[string]string {
	m := map[string]string{}
	for k, v := range f.entries {
		m[k] = protocol.EntryChecksum([]byte(v))
	}
	return m
}

func (f *Fake) checksum() string { return protocol.DatasetChecksum(f.sums()) }

func (f *Fake) get(w http.ResponseWriter, r *http.Request) {
	f.Gets++
	if f.Fail500Every > 0 && f.Gets%f.Fail500Every == 0 {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	if f.version == 0 {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	sum := f.checksum()
	w.Header().Set("ETag", api.ETag(sum))
	if !f.IgnoreINM && api.ETagMatches(r.Header.Get("If-None-Match"), sum, true) {
		f.NotModified++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	var body any = api.Hashes{Version: f.version, Checksum: sum, EntryChecksums: f.sums(), DeletedEntries: f.deleted}
	if r.URL.Query().Get("view") != "hashes" {
		body = api.TeamMemory{Repo: r.URL.Query().Get("repo"), Version: f.version, Checksum: sum,
			Content: api.Content{Entries: f.entries, EntryChecksums: f.sums(), DeletedEntries: f.deleted}}
	}
	if f.Gzip && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		f.Gzipped++
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		defer zw.Close()
		json.NewEncoder(zw).Encode(body)
		return
	}
	json.NewEncoder(w).Encode(body)
}

func (f *Fake) put(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.MaxPutBody = max(f.MaxPutBody, len(raw))
	var req api.PutRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if im := r.Header.Get("If-Match"); im != "" && !api.ETagMatches(im, f.checksum(), f.version > 0) {
		w.WriteHeader(http.StatusPreconditionFailed)
		return
	}
	if f.DropAfter == 0 || f.PutsOK < f.DropAfter {
		for k, v := range req.Entries {
			f.entries[k] = v
		}
		for _, k := range req.SoftDeleteKeys {
			if _, ok := f.entries[k]; ok {
				delete(f.entries, k)
				f.deleted[k] = time.Now().UnixMilli()
			}
		}
		if f.SkipBumpEvery == 0 || (f.PutsOK+1)%f.SkipBumpEvery != 0 {
			f.version++
		}
	}
	f.PutsOK++
	resp := api.PutResponse{Checksum: f.checksum(), Version: f.version, Changed: []string{}, Deleted: []string{}}
	w.Header().Set("ETag", api.ETag(resp.Checksum))
	json.NewEncoder(w).Encode(resp)
}

// Live returns the live keys, sorted.
func (f *Fake) Live() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	keys := make([]string, 0, len(f.entries))
	for k := range f.entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
