package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/teammem/teammem/api"
)

// searchScenario is search: GET /api/v1/search over a corpus of
// SearchRepos repositories of Entries notes each (see CorpusNote),
// loaded once (a repository already holding its corpus is not sent
// again). Each iteration asks the next of SearchQueries, in one
// repository (the next in turn) or, with SearchAll, in all of them.
type searchScenario struct {
	cfg   Config
	c     *client
	repos []string
}

// searchRepo names the i-th repository of the search corpus.
func searchRepo(i int) string { return fmt.Sprintf("loadgen/search-%03d", i) }

func (s *searchScenario) prepare(ctx context.Context) error {
	for i := range s.cfg.SearchRepos {
		s.repos = append(s.repos, searchRepo(i))
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		next = make(chan string)
	)
	for range min(4, s.cfg.Concurrency) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for repo := range next {
				c := *s.c
				c.repo = repo
				err := c.seedWith(ctx, s.cfg.Entries, func(key string) string { return CorpusNote(repo, key, s.cfg.EntryBytes) })
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	for _, r := range s.repos {
		next <- r
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

func (s *searchScenario) iterate(ctx context.Context, w *worker, i int64) {
	q := url.Values{"q": {SearchQueries[i%int64(len(SearchQueries))]}}
	if !s.cfg.SearchAll {
		q.Set("repo", s.repos[i%int64(len(s.repos))])
	}
	target := strings.TrimSuffix(s.c.base, "/") + api.PathSearch + "?" + q.Encode()
	w.send(ctx, s.c, http.MethodGet, target, nil, nil, false, http.StatusOK)
}

func (s *searchScenario) verify(context.Context, []*worker, *Result) error { return nil }
