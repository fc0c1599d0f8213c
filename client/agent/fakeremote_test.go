package agent

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/memcore/protocol"
)

// fakeRemote is an in-memory server of the protocol with fault injection:
// putFaults are returned by the next Puts, beforePut runs before each Put
// (to simulate another writer). It is safe for concurrent use.
type fakeRemote struct {
	mu         sync.Mutex
	entries    map[string]string
	tombs      map[string]int64
	changedAt  map[string]int64 // key → version of its last change
	version    int64
	maxEntries int
	// goneAhead answers a pull since a version newer than the repo's with
	// 410, as the real server does; otherwise such a pull gets nothing.
	goneAhead bool
	putFaults []error
	// skips are keys every Put leaves out and answers as skipped, with
	// the reason code.
	skips map[string]string
	// getErr, when set, answers every Get; gets counts the Gets.
	getErr    error
	gets      int
	beforePut func(f *fakeRemote)
	puts      []api.PutRequest
	ifMatches []string
	// provenances records what each Put's context said of the push.
	provenances []client.Provenance
	surfaces    []string // client.Surface of each Put's context
	// history holds key → checksum → the newest version a revision of the
	// key had it (put, or the content a delete removed), for Seen; seenErr,
	// when set, answers every Seen; seenAsks records what Seen was asked.
	history  map[string]map[string]int64
	seenErr  error
	seenAsks []map[string]string
}

func newFakeRemote(entries map[string]string) *fakeRemote {
	f := &fakeRemote{entries: map[string]string{}, tombs: map[string]int64{}, changedAt: map[string]int64{},
		history: map[string]map[string]int64{}}
	if len(entries) > 0 {
		f.apply(api.PutRequest{Entries: entries})
	}
	return f
}

// checksum is the dataset checksum; callers hold mu.
func (f *fakeRemote) checksum() string {
	sums := map[string]string{}
	for k, v := range f.entries {
		sums[k] = protocol.EntryChecksum([]byte(v))
	}
	return protocol.DatasetChecksum(sums)
}

// apply writes a request; callers hold mu (or own f).
func (f *fakeRemote) apply(req api.PutRequest) {
	f.version++
	for k, v := range req.Entries {
		f.remember(k, v)
		f.entries[k] = v
		delete(f.tombs, k)
		f.changedAt[k] = f.version
	}
	for _, k := range req.SoftDeleteKeys {
		if v, ok := f.entries[k]; ok {
			f.remember(k, v)
			delete(f.entries, k)
			f.tombs[k] = 1
			f.changedAt[k] = f.version
		}
	}
}

// remember records in the history that key held content at the current
// version; callers hold mu.
func (f *fakeRemote) remember(key, content string) {
	if f.history[key] == nil {
		f.history[key] = map[string]int64{}
	}
	f.history[key][protocol.EntryChecksum([]byte(content))] = f.version
}

func (f *fakeRemote) Seen(ctx context.Context, repo string, entries map[string]string) (map[string]int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seenAsks = append(f.seenAsks, maps.Clone(entries))
	if f.seenErr != nil {
		return nil, f.seenErr
	}
	seen := map[string]int64{}
	for k, sum := range entries {
		if v, ok := f.history[k][sum]; ok {
			seen[k] = v
		}
	}
	return seen, nil
}

func (f *fakeRemote) Get(ctx context.Context, repo string, opts client.GetOptions) (*api.TeamMemory, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	if f.getErr != nil {
		return nil, f.getErr
	}
	if f.version == 0 {
		return nil, &client.APIError{Status: 404, Code: api.CodeNotFound}
	}
	if opts.IfNoneMatch == f.checksum() {
		return nil, fmt.Errorf("get: %w", client.ErrNotModified)
	}
	if f.goneAhead && opts.Since > f.version {
		return nil, &client.APIError{Status: 410, Code: api.CodeSinceTooOld}
	}
	m := &api.TeamMemory{Repo: repo, Version: f.version, Checksum: f.checksum(),
		Content: api.Content{Entries: map[string]string{}, DeletedEntries: map[string]int64{}}}
	for k, v := range f.entries {
		if f.changedAt[k] > opts.Since {
			m.Content.Entries[k] = v
		}
	}
	for k, at := range f.tombs {
		if f.changedAt[k] > opts.Since {
			m.Content.DeletedEntries[k] = at
		}
	}
	return m, nil
}

func (f *fakeRemote) Hashes(ctx context.Context, repo string) (*api.Hashes, error) {
	return nil, fmt.Errorf("hashes: not used")
}

func (f *fakeRemote) Put(ctx context.Context, repo string, req api.PutRequest, ifMatch string) (*api.PutResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.beforePut != nil {
		hook := f.beforePut
		f.beforePut = nil
		hook(f)
	}
	f.puts = append(f.puts, req)
	f.ifMatches = append(f.ifMatches, ifMatch)
	f.provenances = append(f.provenances, client.ProvenanceOf(ctx))
	f.surfaces = append(f.surfaces, client.Surface(ctx))
	if len(f.putFaults) > 0 {
		err := f.putFaults[0]
		f.putFaults = f.putFaults[1:]
		return nil, err
	}
	if ifMatch == client.CreateOnly {
		if f.version != 0 {
			return nil, &client.APIError{Status: 412, Code: api.CodeETagMismatch}
		}
	} else if ifMatch != "" && (f.version == 0 || ifMatch != f.checksum()) {
		return nil, &client.APIError{Status: 412, Code: api.CodeETagMismatch}
	}
	if f.maxEntries > 0 {
		live := maps.Clone(f.entries)
		for k, v := range req.Entries {
			live[k] = v
		}
		if len(live) > f.maxEntries {
			return nil, &client.APIError{Status: 413, Code: api.CodeTooManyEntries,
				Details: map[string]any{"error_code": api.CodeTooManyEntries, "max_entries": float64(f.maxEntries), "received_entries": float64(len(live))}}
		}
	}
	var skipped []api.SkippedEntry
	if len(f.skips) > 0 {
		req.Entries = maps.Clone(req.Entries)
		for k, reason := range f.skips {
			if _, ok := req.Entries[k]; ok {
				delete(req.Entries, k)
				skipped = append(skipped, api.SkippedEntry{Key: k, Reason: reason, Message: "left out"})
			}
		}
	}
	resp := &api.PutResponse{Changed: []string{}, Deleted: []string{}}
	for k, v := range req.Entries {
		if old, ok := f.entries[k]; !ok || old != v {
			resp.Changed = append(resp.Changed, k)
		}
	}
	for _, k := range req.SoftDeleteKeys {
		if _, ok := f.entries[k]; ok {
			resp.Deleted = append(resp.Deleted, k)
		}
	}
	f.apply(req)
	// Listed in key order, at most api.MaxSkippedListed, as the server does.
	slices.SortFunc(skipped, func(a, b api.SkippedEntry) int { return strings.Compare(a.Key, b.Key) })
	if n := len(skipped) - api.MaxSkippedListed; n > 0 {
		skipped, resp.SkippedOmitted = skipped[:api.MaxSkippedListed], n
	}
	resp.Checksum, resp.Version, resp.Skipped = f.checksum(), f.version, skipped
	return resp, nil
}

// resetData replaces the repo by a fresh one holding entries, at version
// 1, as a restore from an older backup or a wiped database would.
func (f *fakeRemote) resetData(entries map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.entries, f.tombs, f.changedAt, f.version = map[string]string{}, map[string]int64{}, map[string]int64{}, 0
	f.history = map[string]map[string]int64{}
	f.apply(api.PutRequest{Entries: entries})
}

// snapshot returns a copy of the live entries.
func (f *fakeRemote) snapshot() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.entries)
}

// blockWriter is the engine's block writer, nil when it keeps no block.
func (e *Engine) blockWriter() *blockWriter {
	for _, s := range e.subscribers {
		if b, ok := s.(*blockWriter); ok {
			return b
		}
	}
	return nil
}
