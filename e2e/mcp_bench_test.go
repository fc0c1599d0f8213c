//go:build unix

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/testkit/loadgen"
)

// mcpConcurrency is the number of MCP clients of the round-trip benchmarks.
const mcpConcurrency = 16

// BenchmarkMCPReadMemory measures read_memory round trips over /mcp of the
// real server, 16 clients at once, on a repository of 1,000 entries; it
// reports p50 and p99 in milliseconds. Run with -benchtime=2000x.
func BenchmarkMCPReadMemory(b *testing.B) {
	srv := startBenchServer(b)
	benchToolCalls(b, srv, func(i int) (string, map[string]any) {
		return "read_memory", map[string]any{"repo": repo, "key": fmt.Sprintf("topics/%04d.md", i%1000)}
	})
}

// BenchmarkMCPSearchMemories measures search_memories round trips over
// /mcp, 16 clients at once, on the same repository, with the search
// scenario's queries (loadgen.SearchQueries); p50 and p99 in
// milliseconds. Run with -benchtime=2000x.
func BenchmarkMCPSearchMemories(b *testing.B) {
	srv := startBenchServer(b)
	benchToolCalls(b, srv, func(i int) (string, map[string]any) {
		return "search_memories", map[string]any{"repo": repo, "query": loadgen.SearchQueries[i%len(loadgen.SearchQueries)]}
	})
}

// startBenchServer starts a server with authentication and 1,000 notes of
// the search corpus (2 KB of English and code identifiers each, see
// loadgen.CorpusNote) in repo, written as 10 PUTs of 100.
func startBenchServer(b *testing.B) *authServer {
	b.Helper()
	srv := startAuthServer(b)
	seedNotes(b, srv, 1000)
	return srv
}

// benchToolCalls runs b.N calls of the tool args(i) gives, spread over
// mcpConcurrency sessions, and reports their latency percentiles.
func benchToolCalls(b *testing.B, srv *authServer, args func(i int) (string, map[string]any)) {
	b.Helper()
	// One connection per session kept open, as a client of its own each
	// would have (http.DefaultTransport keeps 2 idle connections a host:
	// the other calls would each open a new connection).
	tr := &http.Transport{MaxIdleConnsPerHost: mcpConcurrency}
	defer tr.CloseIdleConnections()
	sessions := make([]*sdk.ClientSession, mcpConcurrency)
	for i := range sessions {
		sessions[i] = mcpHTTPVia(b, srv, srv.admin, tr)
	}
	lat := make([]time.Duration, b.N)
	var next sync.Mutex
	n := 0
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(func() {
			for {
				next.Lock()
				i := n
				n++
				next.Unlock()
				if i >= b.N {
					return
				}
				tool, a := args(i)
				start := time.Now()
				res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: a})
				lat[i] = time.Since(start)
				if err != nil || res.IsError {
					b.Errorf("%s: %v %v", tool, err, res)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	reportPercentiles(b, lat, 50, 99)
}

// BenchmarkMCPIdleSessions measures the server's resident memory per idle
// MCP session: b.N clients connect over /mcp, each on a connection of its
// own (initialize, list the tools), then stay connected, idle; it reports
// the growth of the server's RSS per session in KB. Run with
// -benchtime=200x.
func BenchmarkMCPIdleSessions(b *testing.B) {
	srv := startAuthServer(b)
	warm := mcpHTTP(b, srv, srv.admin)
	if _, err := warm.ListTools(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	before := rssKB(b, srv.cmd.Process.Pid)
	b.ResetTimer()
	for range b.N {
		tr := &sdk.StreamableClientTransport{Endpoint: srv.url() + "/mcp",
			HTTPClient: &http.Client{Transport: bearer{srv.admin, &http.Transport{}}}}
		s := mcpConnect(b, tr)
		if _, err := s.ListTools(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	time.Sleep(200 * time.Millisecond)
	b.ReportMetric(float64(rssKB(b, srv.cmd.Process.Pid)-before)/float64(b.N), "KB/session")
}

// rssKB reads a process's resident set size.
func rssKB(b *testing.B, pid int) int64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// TestLoadMCPScenarios runs teammem-load's MCP scenarios against the real
// server: every read_memory and search_memories call succeeds, in one
// repository and across all of them.
func TestLoadMCPScenarios(t *testing.T) {
	srv := startAuthServer(t)
	for _, c := range []struct {
		scenario string
		all      bool
	}{{loadgen.MCPRead, false}, {loadgen.MCPSearch, false}, {loadgen.MCPSearch, true}} {
		r, err := loadgen.Run(t.Context(), loadgen.Config{Server: srv.url(), Token: srv.admin, Scenario: c.scenario,
			Concurrency: 3, Requests: 30, Entries: 4, SearchRepos: 2, SearchAll: c.all})
		if err != nil || r.Requests != 30 || len(r.Errors) != 0 {
			t.Errorf("%s (all %v): %d requests, errors %v, %v; want 30 without an error", c.scenario, c.all, r.Requests, r.Errors, err)
		}
	}
}
