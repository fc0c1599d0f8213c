package metrics_test

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/servertest"
)

// scrape reads the server's /metrics into series → value.
func scrape(t *testing.T, ts *servertest.Server) map[string]float64 {
	t.Helper()
	r := ts.Send(false, http.MethodGet, api.PathMetrics, "", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", r.Status, r.Body)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(r.Body)))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// want checks each series' value.
func want(t *testing.T, got map[string]float64, series map[string]float64) {
	t.Helper()
	for s, v := range series {
		if g, ok := got[s]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", s, g, ok, v)
		}
	}
}

// TestCountsRealTraffic: requests through the real handler, the store
// calls they make, the refusals and the writes are counted under their
// route, operation and outcome; the process figures are exported.
func TestCountsRealTraffic(t *testing.T) {
	ts := servertest.Start(t, servertest.Options{})
	ts.Metrics.SetBuildInfo("1.2.3", "go1.test", "sqlite")
	ts.Metrics.WatchStore(ts.Store, "sqlite")
	ts.Put("acme/api", map[string]string{"a.md": "hello\n", "b.md": "world!\n"}, nil, http.StatusOK)
	ts.Get("repo=acme/api", http.StatusOK)
	ts.Get("repo=acme/none", http.StatusNotFound)
	if r := ts.Send(false, http.MethodGet, api.PathRepos, "", nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("GET repos without a token: %d", r.Status)
	}
	if r := ts.Send(false, "BREW", api.PathRepos, ts.Admin, nil); r.Status != http.StatusMethodNotAllowed {
		t.Fatalf("BREW: %d", r.Status)
	}
	got := scrape(t, ts)
	tm := api.PathTeamMemory
	want(t, got, map[string]float64{
		`teammem_http_request_duration_seconds_count{code="200",method="PUT",route="` + tm + `"}`:            1,
		`teammem_http_request_duration_seconds_count{code="200",method="GET",route="` + tm + `"}`:            1,
		`teammem_http_request_duration_seconds_count{code="404",method="GET",route="` + tm + `"}`:            1,
		`teammem_http_request_duration_seconds_count{code="401",method="GET",route="` + api.PathRepos + `"}`: 1,
		`teammem_http_request_duration_seconds_count{code="405",method="other",route="unmatched"}`:           1,
		`teammem_store_operation_duration_seconds_count{op="apply",outcome="ok"}`:                            1,
		`teammem_auth_failures_total`:                                             1,
		`teammem_entries_written_total`:                                           2,
		`teammem_bytes_written_total`:                                             13,
		`teammem_build_info{goversion="go1.test",store="sqlite",version="1.2.3"}`: 1,
		`teammem_store_repos{store="sqlite"}`:                                     1,
		`teammem_store_live_entries{store="sqlite"}`:                              2,
		`teammem_store_live_bytes{store="sqlite"}`:                                13,
		`teammem_event_streams_open`:                                              0,
	})
	for s := range got {
		if strings.Contains(s, `method="BREW"`) {
			t.Errorf("an invented method has a series of its own: %s", s)
		}
	}
	if got[`teammem_store_operation_duration_seconds_count{op="snapshot",outcome="ok"}`] < 1 {
		t.Error("no snapshot counted for the pull")
	}
	if got[`teammem_http_connections_open`] < 1 {
		t.Error("the scrape's own connection is not counted as open")
	}
}

// TestCountsToolCalls: a tools/call on /mcp is counted under its tool and
// outcome.
func TestCountsToolCalls(t *testing.T) {
	ts := servertest.Start(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "hello\n"}, nil, http.StatusOK)
	for _, key := range []string{"a.md", "../etc/passwd"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_memory","arguments":{"repo":"acme/api","key":"` + key + `"}}}`
		r := ts.Send(false, http.MethodPost, "/mcp", ts.Admin, []byte(body), "Accept", "application/json, text/event-stream")
		if r.Status != http.StatusOK {
			t.Fatalf("tools/call: %d %s", r.Status, r.Body)
		}
	}
	want(t, scrape(t, ts), map[string]float64{
		`teammem_mcp_tool_call_duration_seconds_count{outcome="ok",tool="read_memory"}`:      1,
		`teammem_mcp_tool_call_duration_seconds_count{outcome="refused",tool="read_memory"}`: 1,
		`teammem_http_request_duration_seconds_count{code="200",method="POST",route="/mcp"}`: 2,
	})
}
