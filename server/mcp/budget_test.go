package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
	"github.com/teammem/teammem/server/mcp"
)

// post sends one raw JSON-RPC body to the endpoint with token, as a
// streamable client sends it, with the extra headers (name, value...).
func (e *endpoint) post(t *testing.T, token, body string, headers ...string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(reply)
}

// token issues a token of subject with a write grant on acme/*.
func (e *endpoint) token(t *testing.T, subject string) string {
	t.Helper()
	tok, err := e.iss.Issue(subject, []string{"acme/*:write"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// put writes entries into acme/api as an admin.
func (e *endpoint) put(t *testing.T, entries map[string]string) {
	t.Helper()
	admin := server.Principal{Subject: "admin", Grants: []server.Grant{{Glob: []string{"**"}, Perm: server.PermAdmin}}}
	if _, err := e.svc.Put(context.Background(), admin, "acme/api", server.PutInput{Entries: entries}); err != nil {
		t.Fatal(err)
	}
}

// toolCall is the JSON-RPC body of one tools/call.
func toolCall(id int, tool string, args map[string]any) string {
	a, _ := json.Marshal(args)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, a)
}

// rpcReply is a JSON-RPC answer: a tool's result or an error.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeReply(t *testing.T, body string) rpcReply {
	t.Helper()
	var r rpcReply
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("not a JSON-RPC answer: %v: %.300s", err, body)
	}
	return r
}

// toolText is the text of a tool result ("" for a JSON-RPC error).
func (r rpcReply) toolText() string {
	var b strings.Builder
	for _, c := range r.Result.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// TestBatchRefused: a JSON-RPC batch is refused whole, before any of its
// calls runs, with a JSON-RPC error an MCP client shows; so is a body over
// the limit. The SDK itself serves a batch to a request naming no
// protocol revision.
func TestBatchRefused(t *testing.T) {
	e := newEndpoint(t, true)
	tok := e.token(t, "ana")
	for name, body := range map[string]string{
		"batch":              "[" + toolCall(1, "list_memories", map[string]any{"repo": "acme/api"}) + "," + toolCall(2, "list_memories", map[string]any{"repo": "acme/api"}) + "]",
		"batch after spaces": " \n[" + toolCall(1, "write_memory", map[string]any{"repo": "acme/api", "key": "a.md", "content": "A\n"}) + "]",
	} {
		status, _, reply := e.post(t, tok, body)
		r := decodeReply(t, reply)
		if status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "batches are not served") || string(r.ID) != "null" {
			t.Errorf("%s: %d %s; want 400 and an invalid request error", name, status, reply)
		}
	}
	big := toolCall(1, "write_memory", map[string]any{"repo": "acme/api", "key": "a.md", "content": strings.Repeat("x", server.DefaultMaxBodyBytes)})
	if status, _, reply := e.post(t, tok, big); status != http.StatusRequestEntityTooLarge || decodeReply(t, reply).Error == nil {
		t.Errorf("a body over the limit: %d %.300s; want 413 and a JSON-RPC error", status, reply)
	}
	if got := e.observed(); len(got) != 0 {
		t.Errorf("refused requests ran calls: %v", got)
	}
	if _, _, reply := e.post(t, tok, toolCall(3, "list_memories", map[string]any{"repo": "acme/api"})); decodeReply(t, reply).Result.IsError {
		t.Errorf("one call alone: %s", reply)
	}
}

// TestRevisionsWithBatchesNotOffered: /mcp negotiates only the protocol
// revisions without batches: a client asking for 2025-03-26 is offered a
// later one, and a request naming it is refused.
func TestRevisionsWithBatchesNotOffered(t *testing.T) {
	e := newEndpoint(t, true)
	tok := e.token(t, "ana")
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	_, _, reply := e.post(t, tok, init)
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(reply), &r); err != nil || r.Result.ProtocolVersion < "2025-06-18" {
		t.Errorf("initialize asking 2025-03-26: %s; want a revision from 2025-06-18 on", reply)
	}
	status, _, reply := e.post(t, tok, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Protocol-Version", "2025-03-26")
	if status != http.StatusBadRequest {
		t.Errorf("a request of revision 2025-03-26: %d %s; want 400", status, reply)
	}
}

// TestToolCallsTakeRateTokens: each tool call takes a token of its
// caller's rate limit, valid or not; past the burst a call is a tool error
// saying when to retry, and a request that is not a tool call is a 429
// with Retry-After. Another caller keeps its own budget.
func TestToolCallsTakeRateTokens(t *testing.T) {
	var limited int
	e := newEndpointWith(t, true, func(o *mcp.Options) {
		o.Limiter = httpkit.NewLimiter(1.0 / 60) // a burst of 1, then one a minute
		o.RateLimited = func() { limited++ }
	})
	ana, bob := e.token(t, "ana"), e.token(t, "bob")
	list := map[string]any{"repo": "acme/api"}
	if _, _, reply := e.post(t, ana, toolCall(1, "list_memories", list)); decodeReply(t, reply).Result.IsError {
		t.Fatalf("the first call: %s", reply)
	}
	for i, body := range []string{toolCall(2, "list_memories", list), toolCall(3, "read_memory", map[string]any{"nonsense": true})} {
		status, _, reply := e.post(t, ana, body)
		r := decodeReply(t, reply)
		if status != http.StatusOK || !r.Result.IsError || !strings.Contains(r.toolText(), "rate limit") || !strings.Contains(r.toolText(), "retry in 60 s") {
			t.Errorf("call %d past the burst: %d %s; want a tool error saying when to retry", i, status, reply)
		}
	}
	status, header, reply := e.post(t, ana, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	if r := decodeReply(t, reply); status != http.StatusTooManyRequests || header.Get("Retry-After") != "60" || r.Error == nil || string(r.ID) != "4" {
		t.Errorf("tools/list past the burst: %d (Retry-After %q) %s; want 429 with Retry-After", status, header.Get("Retry-After"), reply)
	}
	if _, _, reply := e.post(t, bob, toolCall(5, "list_memories", list)); decodeReply(t, reply).Result.IsError {
		t.Errorf("another caller's first call: %s", reply)
	}
	if got, want := e.observed(), []string{"list_memories/ok", "list_memories/refused", "read_memory/refused", "list_memories/ok"}; !slices.Equal(got, want) || limited != 3 {
		t.Errorf("observed %v and %d refusals counted; want %v and 3", got, limited, want)
	}
}

// TestCallTimeout: a call runs under CallTimeout and is a tool error
// naming it once past it (a write's says it may have been applied); the
// server logs no failure of its own.
func TestCallTimeout(t *testing.T) {
	e := newEndpointWith(t, true, func(o *mcp.Options) { o.CallTimeout = time.Nanosecond })
	tok := e.token(t, "ana")
	_, _, reply := e.post(t, tok, toolCall(1, "list_memories", map[string]any{"repo": "acme/api"}))
	if r := decodeReply(t, reply); !r.Result.IsError || !strings.Contains(r.toolText(), "took longer than the server allows a call (1ns") {
		t.Errorf("list_memories past its deadline: %s", reply)
	}
	_, _, reply = e.post(t, tok, toolCall(2, "write_memory", map[string]any{"repo": "acme/api", "key": "a.md", "content": "A\n"}))
	if r := decodeReply(t, reply); !r.Result.IsError || !strings.Contains(r.toolText(), "may have been applied") {
		t.Errorf("write_memory past its deadline: %s", reply)
	}
	if got := e.observed(); !slices.Equal(got, []string{"list_memories/refused", "write_memory/refused"}) {
		t.Errorf("observed %v", got)
	}
	if logs := e.logs.String(); strings.Contains(logs, "mcp tool failed") {
		t.Errorf("a call past its deadline was logged as the server's failure:\n%s", logs)
	}
}

// TestReplyBound: a reply over MaxReplyBytes is a tool error naming the
// bound. The bound holds for the reply as sent: a reply of n bytes is
// refused under a bound of n-1.
func TestReplyBound(t *testing.T) {
	content := strings.Repeat("Quotes \"like this\", back\\slashes, <tags> & tabs\t.\n", 200)
	read := toolCall(1, "read_memory", map[string]any{"repo": "acme/api", "key": "big.md"})
	unbounded := newEndpoint(t, true)
	unbounded.put(t, map[string]string{"big.md": content})
	_, _, reply := unbounded.post(t, unbounded.token(t, "ana"), read)
	if decodeReply(t, reply).Result.IsError {
		t.Fatalf("read_memory: %.300s", reply)
	}
	bound := len(reply) - 1
	e := newEndpointWith(t, true, func(o *mcp.Options) { o.MaxReplyBytes = bound })
	e.put(t, map[string]string{"big.md": content, "small.md": "small\n"})
	tok := e.token(t, "ana")
	_, _, reply = e.post(t, tok, read)
	if r := decodeReply(t, reply); !r.Result.IsError || !strings.Contains(r.toolText(), fmt.Sprintf("over the server's bound of %d bytes", bound)) {
		t.Errorf("read_memory over the bound: %.300s", reply)
	}
	if _, _, reply := e.post(t, tok, toolCall(2, "read_memory", map[string]any{"repo": "acme/api", "key": "small.md"})); decodeReply(t, reply).Result.IsError {
		t.Errorf("read_memory of a small entry: %s", reply)
	}
}
