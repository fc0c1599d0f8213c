//go:build unix

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/loadgen"
)

// What a hostile caller of /mcp sends: raw JSON-RPC (batches, which no
// SDK client sends) and floods of calls through the Go SDK's client.

// mcpPost sends body to /mcp with token as a streamable HTTP client sends
// its first request (no protocol version header yet) and returns the status
// and the reply.
func mcpPost(ctx context.Context, srv *serverProc, token string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.url()+"/mcp", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	return resp.StatusCode, reply, err
}

// listBatch is a JSON-RPC batch of list_memories calls of repo: n of them,
// or as many as fit in maxBytes when n is 0.
func listBatch(n, maxBytes int) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 1; n == 0 || i <= n; i++ {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_memories","arguments":{"repo":%q}}}`, i, repo)
		if n == 0 && b.Len()+len(msg)+2 > maxBytes {
			break
		}
		if i > 1 {
			b.WriteByte(',')
		}
		b.WriteString(msg)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// largestBatch is the largest batch of list_memories calls the server's
// default body limit admits (about 15,000 calls in 2 MiB).
func largestBatch() []byte { return listBatch(0, 2<<20-1) }

// seedNotes writes n notes of the search corpus (2 KB each) into repo, in
// PUTs of at most 100.
func seedNotes(t testing.TB, srv *authServer, n int) {
	t.Helper()
	for first := 0; first < n; first += 100 {
		entries := map[string]string{}
		for i := first; i < min(n, first+100); i++ {
			key := fmt.Sprintf("topics/%04d.md", i)
			entries[key] = loadgen.CorpusNote(repo, key, 2048)
		}
		if _, err := srv.api.Put(context.Background(), repo, api.PutRequest{Entries: entries}, ""); err != nil {
			t.Fatal(err)
		}
	}
}

// flood is one read-grant caller's worst load on /mcp: batchers goroutines
// each sending the largest batch of list_memories again and again, and
// sessions SDK sessions each calling list_memories in a loop, until stop.
type flood struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	// statuses counts the batch requests' HTTP statuses; calls and refused
	// the sessions' tool calls and those answered with a tool error.
	statuses       map[int]int
	calls, refused int
	replyBytes     int64
}

func startFlood(t testing.TB, srv *authServer, token string, batchers, sessions int) *flood {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &flood{cancel: cancel, statuses: map[int]int{}}
	tr := &http.Transport{MaxIdleConnsPerHost: sessions}
	t.Cleanup(tr.CloseIdleConnections)
	open := make([]*sdk.ClientSession, sessions)
	for i := range open {
		open[i] = mcpHTTPVia(t, srv, token, tr)
	}
	body := largestBatch()
	for range batchers {
		f.wg.Go(func() {
			for ctx.Err() == nil {
				status, reply, err := mcpPost(ctx, srv.serverProc, token, body)
				f.count(func() {
					f.replyBytes += int64(len(reply))
					if err == nil {
						f.statuses[status]++
					}
				})
			}
		})
	}
	for _, s := range open {
		f.wg.Go(func() {
			for ctx.Err() == nil {
				res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "list_memories", Arguments: map[string]any{"repo": repo}})
				f.count(func() {
					f.calls++
					if err == nil && res.IsError {
						f.refused++
					}
				})
			}
		})
	}
	return f
}

func (f *flood) count(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

// batches returns how many batch requests were answered.
func (f *flood) batches() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.statuses {
		n += c
	}
	return n
}

// stop ends the flood and waits for its requests to return.
func (f *flood) stop() {
	f.cancel()
	f.wg.Wait()
}

// probeClient gives up on a PUT after a minute.
var probeClient = &http.Client{Timeout: time.Minute}

// putProbe PUTs one small entry with token, as another teammate's agent
// does while the flood runs, and returns the status and how long it took.
func putProbe(srv *serverProc, token string, i int) (int, time.Duration, error) {
	body := fmt.Sprintf(`{"entries":{"probe/%04d.md":"probe %d\n"}}`, i, i)
	req, err := http.NewRequest(http.MethodPut, srv.url()+api.PathTeamMemory+"?repo="+repo, strings.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	start := time.Now()
	resp, err := probeClient.Do(req)
	if err != nil {
		return 0, time.Since(start), err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, time.Since(start), nil
}
