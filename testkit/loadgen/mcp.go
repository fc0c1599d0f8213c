package loadgen

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// mcpScenario is mcp-read and mcp-search: MCP tools/call requests on /mcp
// over the search corpus (see searchScenario, whose repositories it
// seeds): read_memory of the next note of the next repository in turn, or
// search_memories of the next of SearchQueries in one repository (with
// SearchAll, in all of them). A request is a JSON-RPC POST of its own, as a
// client sends it once its session is initialized; the server's stateless
// transport needs no session. A reply is counted an error unless it is a
// result that is not a tool error.
type mcpScenario struct {
	searchScenario
	tool string
}

// The MCP request headers: the content types the streamable HTTP
// transport requires a client to accept, and the protocol version.
var mcpHeader = http.Header{
	"Accept":               {"application/json, text/event-stream"},
	"Mcp-Protocol-Version": {"2025-06-18"},
}

func (s *mcpScenario) iterate(ctx context.Context, w *worker, i int64) {
	repo := s.repos[i%int64(len(s.repos))]
	args := map[string]any{"repo": repo, "key": entryKey(int(i % int64(s.cfg.Entries)))}
	if s.tool == "search_memories" {
		args = map[string]any{"query": SearchQueries[i%int64(len(SearchQueries))]}
		if !s.cfg.SearchAll {
			args["repo"] = repo
		}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": "tools/call",
		"params": map[string]any{"name": s.tool, "arguments": args}})
	if err != nil {
		w.errors["encode"]++
		return
	}
	r, ok := w.send(ctx, s.c, http.MethodPost, strings.TrimSuffix(s.c.base, "/")+"/mcp", mcpHeader, body, true, http.StatusOK)
	if !ok {
		return
	}
	var rpc struct {
		Error  *struct{ Message string }
		Result *struct{ IsError bool }
	}
	switch err := json.Unmarshal(r.body, &rpc); {
	case err != nil:
		w.errors["not a JSON-RPC reply"]++
	case rpc.Error != nil:
		w.errors["JSON-RPC error"]++
	case rpc.Result == nil || rpc.Result.IsError:
		w.errors["tool error"]++
	}
}
