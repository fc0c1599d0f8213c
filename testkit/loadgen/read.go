package loadgen

import (
	"context"
	"fmt"
	"net/http"

	"github.com/teammem/teammem/api"
)

// readScenario is get-full, get-304 and hashes: GETs of a seeded repository.
type readScenario struct {
	cfg    Config
	c      *client
	target string
	header http.Header
	want   int
}

func (s *readScenario) prepare(ctx context.Context) error {
	if err := s.c.seed(ctx, s.cfg.Entries, s.cfg.EntryBytes); err != nil {
		return err
	}
	s.target, s.want = s.c.url(api.PathTeamMemory), http.StatusOK
	switch s.cfg.Scenario {
	case Hashes:
		s.target = s.c.url(api.PathTeamMemory, "view", "hashes")
	case Get304:
		_, etag, _, err := s.c.hashes(ctx)
		if err != nil {
			return err
		}
		if etag == "" {
			return fmt.Errorf("get hashes of %s: no ETag header", s.c.repo)
		}
		s.header, s.want = http.Header{"If-None-Match": {etag}}, http.StatusNotModified
	}
	return nil
}

func (s *readScenario) iterate(ctx context.Context, w *worker, _ int64) {
	w.send(ctx, s.c, http.MethodGet, s.target, s.header, nil, false, s.want)
}

func (s *readScenario) verify(context.Context, []*worker, *Result) error { return nil }
