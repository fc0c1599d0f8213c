package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/testkit/servertest"
)

// midReadFault injects the fault of a database failing while a full GET
// reads the repository: a streamed read fails at entry failAt (counted
// from 0; negative: never).
type midReadFault struct {
	server.Store
	server.SessionStore // the web UI's, passed through
	failAt              atomic.Int64
}

func (f *midReadFault) Snapshot(ctx context.Context, repo string, opts server.ReadOptions) (server.Snapshot, error) {
	if n := f.failAt.Load(); opts.Stream != nil && n >= 0 {
		opts.Stream = &failingStream{EntryStream: opts.Stream, left: n}
	}
	return f.Store.Snapshot(ctx, repo, opts)
}

// failingStream passes left entries on, then fails as a read does.
type failingStream struct {
	server.EntryStream
	left int64
}

func (s *failingStream) Entry(e server.Entry) error {
	if s.left == 0 {
		return fmt.Errorf("read entries: disk I/O error: %w", server.ErrUnavailable)
	}
	s.left--
	return s.EntryStream.Entry(e)
}

// TestStoreErrorMidStreamFailsTheClient: when the store fails while a full
// GET streams the repository, the client never gets a body it could take
// for the whole: the response ends without its last chunk (HTTP/1.1) or
// with a reset stream (HTTP/2), so reading it fails and what came is not
// JSON; the Go client's Get returns an error. It fails at the first entry
// (nothing sent yet) and after most of them (hundreds of KB sent), plain
// and gzipped; once the store reads again the same GET is whole.
func TestStoreErrorMidStreamFailsTheClient(t *testing.T) {
	for _, tls := range []bool{false, true} {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"), sqlite.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		fault := &midReadFault{Store: db, SessionStore: db}
		fault.failAt.Store(-1)
		ts := newTestServer(t, servertest.Options{Store: fault, BodyCacheBytes: 64 << 10, TLS: tls, NoSecretScan: true})
		entries := map[string]string{}
		for i := range 40 { // random: gzipped too, most of them is sent before the fault
			entries[fmt.Sprintf("topic/%03d.md", i)] = randomAlnum(10_000)
		}
		ts.Put("acme/big", entries, nil, http.StatusOK)
		c, err := client.New(client.Options{BaseURL: ts.URL, Token: ts.Admin, HTTPClient: ts.Client})
		if err != nil {
			t.Fatal(err)
		}
		for _, failAt := range []int64{0, 30} {
			for _, enc := range []string{"identity", "gzip"} {
				t.Run(fmt.Sprintf("tls=%v/fail at %d/%s", tls, failAt, enc), func(t *testing.T) {
					fault.failAt.Store(failAt)
					body, status, readErr := rawGet(t, ts, "acme/big", enc)
					if readErr == nil || json.Valid(body) {
						t.Errorf("status %d, %d bytes read, read error %v, valid JSON %v; want the read to fail and no JSON",
							status, len(body), readErr, json.Valid(body))
					}
					if failAt > 0 && (status != http.StatusOK || len(body) < 64<<10) {
						t.Errorf("status %d after %d bytes; want a 200 cut short past the first flushes", status, len(body))
					}
					if tm, err := c.Get(context.Background(), "acme/big", client.GetOptions{}); err == nil {
						t.Errorf("client Get returned %d entries and no error", len(tm.Content.Entries))
					}
				})
			}
		}
		fault.failAt.Store(-1)
		if tm, err := c.Get(context.Background(), "acme/big", client.GetOptions{}); err != nil || len(tm.Content.Entries) != 40 {
			t.Errorf("tls=%v: after the fault: Get = %v; want 40 entries", tls, err)
		}
	}
}

// rawGet sends a full GET of repo accepting enc and reads the body as
// sent (gzip undone by the transport): what came, the status (0 when no
// response did) and the error that ended the reading.
func rawGet(t *testing.T, ts *testServer, repo, enc string) (body []byte, status int, err error) {
	t.Helper()
	req := ts.NewRequest(context.Background(), http.MethodGet, api.PathTeamMemory+"?repo="+repo, ts.Admin, nil)
	if enc == "gzip" {
		req.Header.Del("Accept-Encoding") // the transport asks for gzip and undoes it
	} else {
		req.Header.Set("Accept-Encoding", enc)
	}
	resp, err := ts.Client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if enc == "gzip" && !resp.Uncompressed && resp.StatusCode == http.StatusOK {
		t.Errorf("a gzip GET came back %q", resp.Header.Get("Content-Encoding"))
	}
	body, err = io.ReadAll(resp.Body)
	return body, resp.StatusCode, err
}
