package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/testkit/servertest"
)

// stockSync is the team memory sync of Claude Code 2.1.112 (cli.js) as it
// talks to the server: a pull records the server's entry checksums and
// checksum; a push sends the keys whose local hash differs from the
// recorded one, with If-Match the last checksum, then records its own
// hashes as the server's and the answer's checksum as the last one. Any
// 4xx to a push stops it for the session.
type stockSync struct {
	ts      *testServer
	token   string
	last    string
	server  map[string]string
	local   map[string]string
	pushes  int
	stopped bool
}

func (s *stockSync) pull() {
	s.ts.t.Helper()
	r := s.ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", s.token, nil)
	tm := servertest.Decode[api.TeamMemory](s.ts.t, r)
	s.last, s.server = tm.Checksum, map[string]string{}
	for k, v := range tm.Content.Entries {
		s.local[k], s.server[k] = v, tm.Content.EntryChecksums[k]
	}
}

func (s *stockSync) push() {
	s.ts.t.Helper()
	delta := map[string]string{}
	for k, v := range s.local {
		if s.server[k] != protocol.EntryChecksum([]byte(v)) {
			delta[k] = v
		}
	}
	if len(delta) == 0 || s.stopped {
		return
	}
	body, _ := json.Marshal(api.PutRequest{Entries: delta})
	r := s.ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", s.token, body, "If-Match", `"`+s.last+`"`)
	s.pushes++
	if r.Status >= 400 && r.Status < 500 {
		s.stopped = true
		s.ts.t.Errorf("push %d answered %d: the stock client stops syncing: %s", s.pushes, r.Status, r.Body)
		return
	}
	s.last = servertest.Decode[api.PutResponse](s.ts.t, r).Checksum
	for k, v := range delta {
		s.server[k] = protocol.EntryChecksum([]byte(v))
	}
}

// TestStockClientSequenceUnderReview: the stock client's pushes under
// review never see a 4xx, never push the same edit twice in a session
// (it records its own hashes as the server's), and a later session that
// pushes the same edit again amends the one proposal instead of making a
// second.
func TestStockClientSequenceUnderReview(t *testing.T) {
	reviewStores(t, func(t *testing.T, ts *testServer) {
		ts.Put("acme/api", map[string]string{"a.md": "one\n"}, nil, http.StatusOK)
		ts.setPolicy(ts.Admin, "acme/api", "changes", http.StatusOK)
		c := &stockSync{ts: ts, token: ts.Token("bob", "acme/api:write"), local: map[string]string{}}
		c.pull()
		c.local["a.md"] = "two\n"
		c.push()
		c.local["b.md"] = "new\n"
		c.push()
		c.push() // a watcher event with nothing changed: no request
		if c.pushes != 2 {
			t.Errorf("%d pushes in the session; want 2 (a.md once, then b.md)", c.pushes)
		}
		next := &stockSync{ts: ts, token: c.token, local: map[string]string{}}
		next.pull() // the reviewed a.md comes back
		next.local["a.md"] = "two\n"
		next.push()
		list := servertest.Decode[api.Proposals](t, ts.Do(http.MethodGet, api.PathProposals+"?repo=acme/api", ts.Admin, nil))
		if len(list.Proposals) != 1 || len(list.Proposals[0].Keys) != 1 {
			t.Errorf("proposals after two sessions: %+v; want one, of a.md", list.Proposals)
		}
	})
}
