package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/teammem/teammem/api"
)

// attemptsPerWriter bounds the 412 retries of one cas write, per
// concurrent writer: all of them race for the one repository version an
// If-Match names, so each attempt wins about once in Concurrency. A flat
// 100 let a writer of 16 lose every race ((15/16)^100 ≈ 0.2 %): against a
// server on one CPU, 4 runs of 2 s in 25 failed for it. 20 per writer
// makes that at most about 1e-9 per write, at any concurrency.
const attemptsPerWriter = 20

// casScenario is cas: each worker is a writer that owns one key and, each
// iteration, reads the hashes, then PUTs a new content of its key with
// If-Match, retrying on 412. At the end, each writer's last acknowledged
// content must be what the server holds, no two acknowledged writes may
// share a version, and the version must have moved once per acknowledged
// write; every shortfall is a lost update.
type casScenario struct {
	cfg          Config
	c            *client
	hashes, put  string
	base         int64
	startVersion int64
}

func (s *casScenario) prepare(ctx context.Context) error {
	s.hashes = s.c.url(api.PathTeamMemory, "view", "hashes")
	s.put = s.c.url(api.PathTeamMemory)
	s.base = time.Now().UnixNano()
	if err := s.c.seed(ctx, s.cfg.Entries, s.cfg.EntryBytes); err != nil {
		return err
	}
	h, _, _, err := s.c.hashes(ctx)
	s.startVersion = h.Version
	return err
}

func casKey(writer int) string { return fmt.Sprintf("load/cas-w%03d.md", writer) }

func (s *casScenario) iterate(ctx context.Context, w *worker, i int64) {
	key, gen := casKey(w.id), s.base+i
	body := putBody(key, entryContent(key, gen, s.cfg.EntryBytes))
	for range attemptsPerWriter * s.cfg.Concurrency {
		r, ok := w.send(ctx, s.c, http.MethodGet, s.hashes, nil, nil, false, http.StatusOK)
		if !ok {
			return
		}
		h := http.Header{"If-Match": {r.header.Get("ETag")}}
		r, ok = w.send(ctx, s.c, http.MethodPut, s.put, h, body, true, http.StatusOK, http.StatusPreconditionFailed)
		if !ok {
			return
		}
		if r.status == http.StatusPreconditionFailed {
			w.conflicts++
			continue
		}
		var pr api.PutResponse
		if err := json.Unmarshal(r.body, &pr); err != nil {
			w.errors["bad-body"]++
			return
		}
		w.acked = append(w.acked, ack{key: key, gen: gen, version: pr.Version})
		return
	}
	w.errors["412-retries-exhausted"]++
}

func (s *casScenario) verify(ctx context.Context, workers []*worker, r *Result) error {
	tm, err := s.c.pull(ctx)
	if err != nil {
		return err
	}
	versions := map[int64]int{}
	for _, w := range workers {
		r.Acknowledged += len(w.acked)
		r.Conflicts += w.conflicts
		for _, a := range w.acked {
			versions[a.version]++
		}
		if n := len(w.acked); n > 0 {
			last := w.acked[n-1]
			if tm.Content.Entries[last.key] != entryContent(last.key, last.gen, s.cfg.EntryBytes) {
				r.LostUpdates++
			}
		}
	}
	for _, n := range versions {
		r.LostUpdates += n - 1
	}
	if moved := tm.Version - s.startVersion; moved < int64(r.Acknowledged) {
		r.LostUpdates = max(r.LostUpdates, r.Acknowledged-int(moved))
	}
	return nil
}
