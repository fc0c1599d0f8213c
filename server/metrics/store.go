package metrics

import (
	"context"
	"time"

	"github.com/teammem/teammem/server"
)

// InstrumentStore wraps a Store so that every operation's duration is
// recorded.
func (m *Metrics) InstrumentStore(s server.Store) server.Store { return &instrumentedStore{s: s, m: m} }

type instrumentedStore struct {
	s server.Store
	m *Metrics
}

var _ server.Store = (*instrumentedStore)(nil)

func (i *instrumentedStore) observe(op string, start time.Time, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
		if server.IsClientError(err) {
			outcome = "refused"
		}
	}
	i.m.storeOps.WithLabelValues(op, outcome).Observe(time.Since(start).Seconds())
}

func (i *instrumentedStore) RepoState(ctx context.Context, repo string) (server.RepoState, error) {
	start := time.Now()
	st, err := i.s.RepoState(ctx, repo)
	i.observe("repo_state", start, err)
	return st, err
}

func (i *instrumentedStore) Precondition(ctx context.Context, repo string, c server.Preconditions) error {
	start := time.Now()
	err := i.s.Precondition(ctx, repo, c)
	i.observe("precondition", start, err)
	return err
}

func (i *instrumentedStore) Snapshot(ctx context.Context, repo string, o server.ReadOptions) (server.Snapshot, error) {
	start := time.Now()
	s, err := i.s.Snapshot(ctx, repo, o)
	i.observe("snapshot", start, err)
	return s, err
}

func (i *instrumentedStore) Apply(ctx context.Context, w server.Write) (server.WriteResult, error) {
	start := time.Now()
	r, err := i.s.Apply(ctx, w)
	i.observe("apply", start, err)
	return r, err
}

func (i *instrumentedStore) History(ctx context.Context, repo, key string, before int64, limit int) ([]server.Revision, error) {
	start := time.Now()
	r, err := i.s.History(ctx, repo, key, before, limit)
	i.observe("history", start, err)
	return r, err
}

func (i *instrumentedStore) Histories(ctx context.Context, repo string, keys []string, before int64) (map[string][]server.Revision, error) {
	start := time.Now()
	r, err := i.s.Histories(ctx, repo, keys, before)
	i.observe("histories", start, err)
	return r, err
}

func (i *instrumentedStore) Revision(ctx context.Context, repo, key string, version int64) (server.Revision, error) {
	start := time.Now()
	r, err := i.s.Revision(ctx, repo, key, version)
	i.observe("revision", start, err)
	return r, err
}

func (i *instrumentedStore) KeyRevisions(ctx context.Context, repo, key string, through int64, visit func(server.Revision) error) error {
	start := time.Now()
	err := i.s.KeyRevisions(ctx, repo, key, through, visit)
	i.observe("key_revisions", start, err)
	return err
}

func (i *instrumentedStore) Activity(ctx context.Context, repo string, before int64, limit int) (server.ActivityPage, error) {
	start := time.Now()
	p, err := i.s.Activity(ctx, repo, before, limit)
	i.observe("activity", start, err)
	return p, err
}

func (i *instrumentedStore) Events(ctx context.Context, repo string, after int64, limit int) ([]*server.Event, error) {
	start := time.Now()
	evs, err := i.s.Events(ctx, repo, after, limit)
	i.observe("events", start, err)
	return evs, err
}

func (i *instrumentedStore) Search(ctx context.Context, q server.SearchRequest) ([]server.SearchHit, error) {
	start := time.Now()
	h, err := i.s.Search(ctx, q)
	i.observe("search", start, err)
	return h, err
}

func (i *instrumentedStore) Repos(ctx context.Context, prefix string) ([]server.RepoState, error) {
	start := time.Now()
	r, err := i.s.Repos(ctx, prefix)
	i.observe("repos", start, err)
	return r, err
}

func (i *instrumentedStore) PurgeTombstones(ctx context.Context, before time.Time) (int, error) {
	start := time.Now()
	n, err := i.s.PurgeTombstones(ctx, before)
	i.observe("purge_tombstones", start, err)
	return n, err
}

func (i *instrumentedStore) EraseRepo(ctx context.Context, repo string) (before, after server.RepoState, err error) {
	start := time.Now()
	before, after, err = i.s.EraseRepo(ctx, repo)
	i.observe("erase_repo", start, err)
	return before, after, err
}

func (i *instrumentedStore) Ping(ctx context.Context) error {
	start := time.Now()
	err := i.s.Ping(ctx)
	i.observe("ping", start, err)
	return err
}

func (i *instrumentedStore) Close() error { return i.s.Close() }

func (i *instrumentedStore) LastAuthors(ctx context.Context, repo string) (map[string]string, error) {
	start := time.Now()
	a, err := i.s.LastAuthors(ctx, repo)
	i.observe("last_authors", start, err)
	return a, err
}

func (i *instrumentedStore) SeenChecksums(ctx context.Context, repo string, want map[string]string) (map[string]int64, error) {
	start := time.Now()
	seen, err := i.s.SeenChecksums(ctx, repo, want)
	i.observe("seen_checksums", start, err)
	return seen, err
}

func (i *instrumentedStore) ServerID() string { return i.s.ServerID() }

func (i *instrumentedStore) SaveStaleReports(ctx context.Context, repo string, reports []server.StaleReport) error {
	start := time.Now()
	err := i.s.SaveStaleReports(ctx, repo, reports)
	i.observe("save_stale_reports", start, err)
	return err
}

func (i *instrumentedStore) StaleReports(ctx context.Context, repo string, q server.StaleQuery) ([]server.StaleReport, error) {
	start := time.Now()
	out, err := i.s.StaleReports(ctx, repo, q)
	i.observe("stale_reports", start, err)
	return out, err
}
