package loadgen

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/teammem/teammem/api"
)

// putScenario is put: each iteration writes one new entry, rotating over
// the seeded keys so the repository keeps its size.
type putScenario struct {
	cfg    Config
	c      *client
	target string
	base   int64 // generations start here, so no run repeats another's content
}

func (s *putScenario) prepare(ctx context.Context) error {
	s.target, s.base = s.c.url(api.PathTeamMemory), time.Now().UnixNano()
	return s.c.seed(ctx, s.cfg.Entries, s.cfg.EntryBytes)
}

func (s *putScenario) iterate(ctx context.Context, w *worker, i int64) {
	key := entryKey(int(i % int64(s.cfg.Entries)))
	body := putBody(key, entryContent(key, s.base+i, s.cfg.EntryBytes))
	w.send(ctx, s.c, http.MethodPut, s.target, nil, body, false, http.StatusOK)
}

func (s *putScenario) verify(context.Context, []*worker, *Result) error { return nil }

// putBody is the JSON of a PUT of one entry.
func putBody(key, content string) []byte {
	b, _ := json.Marshal(api.PutRequest{Entries: map[string]string{key: content}})
	return b
}
