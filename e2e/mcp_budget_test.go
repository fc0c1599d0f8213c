//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/pgtest"
)

// jsonRPCError is the error answer of a refused request.
type jsonRPCError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestMCPBatchRefused sends JSON-RPC batches to /mcp with a read grant:
// two calls, and the largest batch the body limit admits (about 15,000
// calls, a reply of over 100 MB once). Each is refused whole with a 400
// and a JSON-RPC error, running no call; one call per request is served.
func TestMCPBatchRefused(t *testing.T) {
	srv := startAuthServer(t)
	seedNotes(t, srv, 3)
	reader := srv.token(t, "reader", "acme/**:read")
	for name, body := range map[string][]byte{"two calls": listBatch(2, 0), "largest": largestBatch()} {
		t.Run(name, func(t *testing.T) {
			status, reply, err := mcpPost(t.Context(), srv.serverProc, reader, body)
			if err != nil {
				t.Fatal(err)
			}
			var e jsonRPCError
			if status != 400 || json.Unmarshal(reply, &e) != nil || e.JSONRPC != "2.0" || e.Error.Code != -32600 ||
				!strings.Contains(e.Error.Message, "batch") || string(e.ID) != "null" {
				t.Fatalf("a batch of %d bytes: %d %.300s; want 400 and a JSON-RPC invalid request error naming batches", len(body), status, reply)
			}
		})
	}
	if strings.Contains(srv.stderr.String(), "tool=list_memories") {
		t.Errorf("a refused batch ran a call:\n%s", srv.stderr)
	}
	s := mcpHTTP(t, srv, reader)
	call(t, s, "list_memories", map[string]any{"repo": repo}, nil)
}

// retryRE is how a refusal for the rate limit says when to retry.
var retryRE = regexp.MustCompile(`retry in [0-9]+ s`)

// TestMCPToolCallsRateLimited makes 20 list_memories calls in a row with
// --rate-limit 1 (a burst of 2): every call past the caller's budget is a
// tool error naming when to retry, and no more than the budget pass.
func TestMCPToolCallsRateLimited(t *testing.T) {
	srv := startAuthServer(t, "--rate-limit", "1")
	reader := srv.token(t, "reader", "acme/**:read")
	s := mcpHTTP(t, srv, reader)
	start := time.Now()
	passed, limited := 0, 0
	for i := range 20 {
		res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "list_memories", Arguments: map[string]any{"repo": repo}})
		if err != nil {
			t.Fatalf("call %d: %v; want a result (a refusal is a tool error)", i, err)
		}
		if !res.IsError {
			passed++
			continue
		}
		if text := resultText(res); !strings.Contains(text, "rate limit") || !retryRE.MatchString(text) {
			t.Fatalf("call %d refused with %q; want the rate limit and when to retry", i, text)
		}
		limited++
	}
	// The handshake took one token of the burst of 2; one more comes each second.
	if budget := 2 + int(time.Since(start).Seconds()); passed > budget || limited == 0 {
		t.Errorf("%d calls passed and %d were refused; want at most %d passed", passed, limited, budget)
	}
}

// TestMCPCallTimeout runs calls under --request-timeout 1ns: each is
// stopped at its deadline and answered with a tool error naming the
// bound, where it used to run unbounded.
func TestMCPCallTimeout(t *testing.T) {
	srv := startAuthServer(t, "--request-timeout", "1ns")
	s := mcpHTTP(t, srv, srv.admin)
	for tool, args := range map[string]map[string]any{
		"list_memories":   {"repo": repo},
		"search_memories": {"query": "pool"},
		"read_memory":     {"repo": repo, "key": "MEMORY.md"},
		"write_memory":    {"repo": repo, "key": "a.md", "content": "A\n"},
	} {
		if text := refused(t, s, tool, args); !strings.Contains(text, "took longer than") || !strings.Contains(text, "--request-timeout") {
			t.Errorf("%s: %q; want the call stopped at the request timeout", tool, text)
		}
	}
}

// TestMCPReplyBound reads an entry whose reply would be over
// --max-mcp-reply-bytes: a tool error naming the bound and the way round
// it; a small entry is read as ever.
func TestMCPReplyBound(t *testing.T) {
	srv := startAuthServer(t, "--max-mcp-reply-bytes", "65536")
	big := strings.Repeat("A line of a long memory.\n", 4000) // 100 KB
	if _, err := srv.api.Put(context.Background(), repo, api.PutRequest{Entries: map[string]string{"big.md": big, "small.md": "small\n"}}, ""); err != nil {
		t.Fatal(err)
	}
	s := mcpHTTP(t, srv, srv.admin)
	if text := refused(t, s, "read_memory", map[string]any{"repo": repo, "key": "big.md"}); !strings.Contains(text, "65536 bytes") {
		t.Errorf("read_memory of 100 KB: %q; want a refusal naming the bound", text)
	}
	call(t, s, "read_memory", map[string]any{"repo": repo, "key": "small.md"}, nil)
	call(t, s, "list_memories", map[string]any{"repo": repo}, nil)
}

// TestMCPFloodSparesOthers floods /mcp with one read-grant token (the
// largest batch again and again, and 16 sessions calling list_memories
// without pause) while another teammate's token PUTs, on each store: every
// PUT succeeds. (The flood's calls once held every connection of the
// store's pool, and the token checks of everyone else timed out waiting
// for one: 503.)
func TestMCPFloodSparesOthers(t *testing.T) {
	for name, store := range map[string]func(t *testing.T) []string{
		"sqlite":   func(*testing.T) []string { return nil },
		"postgres": func(t *testing.T) []string { return []string{"--database-url", pgtest.URL(t), "--migrate"} },
	} {
		t.Run(name, func(t *testing.T) { floodSparesOthers(t, store(t)) })
	}
}

func floodSparesOthers(t *testing.T, storeFlags []string) {
	srv := startAuthServer(t, append([]string{"--rate-limit", "2000"}, storeFlags...)...)
	seedNotes(t, srv, 40)
	reader := srv.token(t, "flooder", "acme/**:read")
	writer := srv.token(t, "teammate", "acme/**:write")
	f := startFlood(t, srv, reader, 1, 16)
	// A PUT every tenth of a second, at least 30 and until the batch had
	// an answer (at most 200), so that the PUTs span the flood's heaviest
	// part.
	var failed []string
	n := 0
	for ; n < 30 || (f.batches() < 1 && n < 200); n++ {
		status, took, err := putProbe(srv.serverProc, writer, n)
		if err != nil || status != 200 {
			failed = append(failed, fmt.Sprintf("PUT %d: %d after %v (%v)", n, status, took.Round(time.Millisecond), err))
		}
		time.Sleep(100 * time.Millisecond)
	}
	f.stop()
	if len(failed) > 0 {
		t.Errorf("%d of %d PUTs of another token failed during the flood:\n%s\nserver:\n%s", len(failed), n, strings.Join(failed, "\n"), serverLines(srv, "mcp tool call"))
	}
	t.Logf("flood: batch statuses %v, %d session calls (%d refused), %d reply bytes", f.statuses, f.calls, f.refused, f.replyBytes)
}

// serverLines is the server's log without the lines holding skip.
func serverLines(srv *authServer, skip string) string {
	var keep []string
	for _, l := range srv.stderr.snapshot() {
		if !strings.Contains(l, skip) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
