//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/testkit/proctest"
)

// bearer adds a token to every request of the MCP client, sent through
// next (nil: http.DefaultTransport).
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	if b.next == nil {
		return http.DefaultTransport.RoundTrip(r)
	}
	return b.next.RoundTrip(r)
}

// mcpTransport opens an MCP session with a token: over HTTP to the
// server's /mcp, or over stdio to a `teammem-agent mcp` process.
type mcpTransport func(t testing.TB, srv *authServer, token string) *sdk.ClientSession

// mcpTransports are both ways in.
var mcpTransports = map[string]mcpTransport{"http": mcpHTTP, "stdio": mcpStdio}

// mcpHTTP connects the SDK's streamable client to /mcp.
func mcpHTTP(t testing.TB, srv *authServer, token string) *sdk.ClientSession {
	t.Helper()
	return mcpHTTPVia(t, srv, token, nil)
}

// mcpHTTPVia is mcpHTTP sending through next (nil: http.DefaultTransport).
func mcpHTTPVia(t testing.TB, srv *authServer, token string, next http.RoundTripper) *sdk.ClientSession {
	t.Helper()
	tr := &sdk.StreamableClientTransport{Endpoint: srv.url() + "/mcp", HTTPClient: &http.Client{Transport: bearer{token: token, next: next}}}
	return mcpConnect(t, tr)
}

// mcpStdio runs the real teammem-agent binary as `mcp` with the server and
// token in its environment, in a home of its own (no agent.toml).
func mcpStdio(t testing.TB, srv *authServer, token string) *sdk.ClientSession {
	t.Helper()
	cmd := proctest.Command(t, agentBin, "mcp", "--repo", repo, "--log-level", "warn")
	home := t.TempDir()
	cmd.Env = append(cleanEnv(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"TEAMMEM_SERVER="+srv.url(), "TEAMMEM_TOKEN="+token)
	cmd.Stderr = os.Stderr
	return mcpConnect(t, &sdk.CommandTransport{Command: cmd})
}

func mcpConnect(t testing.TB, tr sdk.Transport) *sdk.ClientSession {
	t.Helper()
	cl := sdk.NewClient(&sdk.Implementation{Name: "teammem-e2e", Version: "1"}, nil)
	s, err := cl.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// call calls a tool that must succeed and decodes its structured output
// into out (when not nil).
func call(t *testing.T, s *sdk.ClientSession, tool string, args map[string]any, out any) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s %v: tool error %q", tool, args, resultText(res))
	}
	if out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: decode %s: %v", tool, b, err)
		}
	}
}

// refused calls a tool that must answer a tool error and returns its text.
func refused(t *testing.T, s *sdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v (want a tool error, not a protocol error)", tool, err)
	}
	if !res.IsError {
		t.Fatalf("%s %v: succeeded; want a tool error", tool, args)
	}
	return resultText(res)
}

func resultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
