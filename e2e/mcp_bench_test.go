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
func rssKB(b *testing.B, pid int) int64 { return statusKB(b, pid, "VmRSS") }

// statusKB reads a field in kB (VmRSS, VmHWM: the peak RSS) of a process's
// /proc status.
func statusKB(b *testing.B, pid int, field string) int64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb
		}
	}
	b.Fatalf("no %s", field)
	return 0
}

// BenchmarkMCPWorstReadRequest measures what the worst requests a
// read-grant token can send cost everyone else: three clients send the
// largest JSON-RPC batch of list_memories the body limit admits (about
// 15,000 calls) again and again, and 8 sessions call list_memories without
// pause, on a repository of 12 notes; meanwhile another token PUTs 20
// times a second, b.N times. It reports the PUTs' p50 and p99 in
// milliseconds, how many failed, and the server's peak RSS in MB (VmHWM).
// The quiet case is the same PUTs without the flood. Run with
// -benchtime=400x (20 s).
func BenchmarkMCPWorstReadRequest(b *testing.B) {
	for _, c := range []struct {
		name              string
		batchers, callers int
	}{{"quiet", 0, 0}, {"flood", 3, 8}} {
		b.Run(c.name, func(b *testing.B) { benchPutsDuringFlood(b, c.batchers, c.callers) })
	}
}

// benchPutsDuringFlood runs b.N paced PUTs of one token while another
// floods /mcp with batchers and callers (startFlood).
func benchPutsDuringFlood(b *testing.B, batchers, callers int) {
	srv := startAuthServer(b, "--rate-limit", "2000")
	seedNotes(b, srv, 12)
	reader := srv.token(b, "flooder", "acme/**:read")
	writer := srv.token(b, "teammate", "acme/**:write")
	f := startFlood(b, srv, reader, batchers, callers)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	lat := make([]time.Duration, 0, b.N)
	failed := 0
	b.ResetTimer()
	for i := range b.N {
		<-tick.C
		status, took, err := putProbe(srv.serverProc, writer, i)
		if err != nil || status != 200 {
			failed++
		}
		lat = append(lat, took)
	}
	b.StopTimer()
	peak := statusKB(b, srv.cmd.Process.Pid, "VmHWM")
	f.stop()
	reportPercentiles(b, lat, 50, 99)
	b.ReportMetric(float64(failed), "put-failed")
	b.ReportMetric(float64(peak)/1024, "peak-rss-MB")
	b.Logf("flood: batch statuses %v, %d session calls (%d refused), %d reply bytes", f.statuses, f.calls, f.refused, f.replyBytes)
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
