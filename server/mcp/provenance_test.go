package mcp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/server"
)

// TestWriteProvenance: a tool's write is stamped with the mcp surface, the
// token's subject and id, and the MCP client's clientInfo, which the
// protocol carries with every call; from a client of the older protocol,
// whose initialize a stateless server never sees again, the User-Agent.
// memory_history shows it.
func TestWriteProvenance(t *testing.T) {
	e := newEndpoint(t, true)
	tok, rec, err := e.iss.IssueRecord("ana", []string{"acme/*:write"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, protocol, key, client string
	}{
		{"clientInfo", "", "new.md", "mcp-test/1"},
		{"User-Agent", "2025-06-18", "old.md", "Go-http-client/1.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := &sdk.StreamableClientTransport{Endpoint: e.url, HTTPClient: &http.Client{Transport: bearer(tok)}}
			s, err := sdk.NewClient(&sdk.Implementation{Name: "mcp-test", Version: "1"}, nil).Connect(context.Background(), tr,
				&sdk.ClientSessionOptions{ProtocolVersion: tt.protocol})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if w := callTool(t, s, "write_memory", map[string]any{"repo": "acme/api", "key": tt.key, "content": "x\n"}); w.IsError {
				t.Fatalf("write_memory: %s", text(w))
			}
			ana := server.Principal{Subject: "ana", Grants: []server.Grant{{Glob: []string{"**"}, Perm: server.PermRead}}}
			revs, err := e.svc.History(context.Background(), ana, "acme/api", tt.key, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			want := server.Provenance{Subject: "ana", Credential: "token:" + rec.ID, Surface: server.SurfaceMCP, Client: tt.client}
			if got := revs[0].Provenance; got != want {
				t.Errorf("provenance %+v; want %+v", got, want)
			}
			h := text(callTool(t, s, "memory_history", map[string]any{"repo": "acme/api", "key": tt.key}))
			if !strings.Contains(h, `"surface":"mcp"`) || !strings.Contains(h, `"client":"`+tt.client+`"`) {
				t.Errorf("memory_history does not show the provenance: %s", h)
			}
		})
	}
}
