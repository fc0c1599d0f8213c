package loadgen

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/testkit/loadgen/loadgentest"
)

func testConfig(srv *httptest.Server, scenario string) Config {
	return Config{Server: srv.URL, Token: loadgentest.Token, Scenario: scenario, Concurrency: 4, Requests: 200}
}

func countPrefix(keys []string, prefix string) int {
	n := 0
	for _, k := range keys {
		if strings.HasPrefix(k, prefix) {
			n++
		}
	}
	return n
}

func TestRunCounts(t *testing.T) {
	for _, sc := range []string{GetFull, Get304, Hashes, Put} {
		t.Run(sc, func(t *testing.T) {
			f, srv := loadgentest.New(t)
			r, err := Run(t.Context(), testConfig(srv, sc))
			if err != nil {
				t.Fatal(err)
			}
			if r.Requests != 200 || !r.OK() {
				t.Fatalf("requests %d, errors %v; want 200 and none", r.Requests, r.Errors)
			}
			if r.P50ms <= 0 || r.P99ms < r.P50ms || r.RPS <= 0 {
				t.Errorf("p50 %v p99 %v rps %v", r.P50ms, r.P99ms, r.RPS)
			}
			switch sc {
			case Get304:
				if f.NotModified != 200 {
					t.Errorf("server answered %d 304s, want 200", f.NotModified)
				}
			case Put:
				if f.PutsOK != 201 { // one seeding PUT
					t.Errorf("server stored %d PUTs, want 201", f.PutsOK)
				}
			}
			if got := f.Live(); len(got) != DefaultEntries {
				t.Errorf("repo holds %d entries, want %d", len(got), DefaultEntries)
			}
		})
	}
}

func TestRunCountsErrorsByStatus(t *testing.T) {
	f, srv := loadgentest.New(t)
	f.Fail500Every = 10
	cfg := testConfig(srv, Hashes)
	// Seeding reads the hashes once (GET 1); the run's GETs are 2..201.
	r, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"500": 20}, r.Errors); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if r.OK() || r.Requests != 200 {
		t.Errorf("OK %v, requests %d", r.OK(), r.Requests)
	}
}

func TestGet304CountsEveryOtherStatusAsAnError(t *testing.T) {
	f, srv := loadgentest.New(t)
	f.IgnoreINM = true
	r, err := Run(t.Context(), testConfig(srv, Get304))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"200": 200}, r.Errors); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestRunRejectsABadToken(t *testing.T) {
	_, srv := loadgentest.New(t)
	cfg := testConfig(srv, GetFull)
	cfg.Token = "wrong"
	if _, err := Run(t.Context(), cfg); err == nil {
		t.Fatal("want seeding to fail with 401")
	}
}

func TestCAS(t *testing.T) {
	tests := []struct {
		name     string
		plant    func(*loadgentest.Fake)
		wantLost bool
	}{
		{"correct server", func(*loadgentest.Fake) {}, false},
		{"acknowledged writes dropped", func(f *loadgentest.Fake) { f.DropAfter = 50 }, true},
		{"two acknowledgements of one version", func(f *loadgentest.Fake) { f.SkipBumpEvery = 10 }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := loadgentest.New(t)
			tt.plant(f)
			cfg := testConfig(srv, CAS)
			cfg.Requests = 100
			r, err := Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Acknowledged != 100 || r.ErrorCount() != 0 {
				t.Fatalf("acknowledged %d, errors %v; want 100 and none", r.Acknowledged, r.Errors)
			}
			if got := r.LostUpdates > 0; got != tt.wantLost {
				t.Errorf("lost updates %d, want lost: %v", r.LostUpdates, tt.wantLost)
			}
			if r.Requests < 2*r.Acknowledged+2*r.Conflicts {
				t.Errorf("requests %d < 2×(acked %d + 412s %d)", r.Requests, r.Acknowledged, r.Conflicts)
			}
			if n := countPrefix(f.Live(), "load/cas-w"); !tt.wantLost && n != cfg.Concurrency {
				t.Errorf("%d writer keys, want %d", n, cfg.Concurrency)
			}
		})
	}
}

// TestGzipBodies: the workers ask for gzip and leave discarded bodies
// compressed; the bodies the generator reads (seeding's hashes, the cas
// writers' final pull) are inflated.
func TestGzipBodies(t *testing.T) {
	f, srv := loadgentest.New(t)
	f.Gzip = true
	cfg := testConfig(srv, CAS)
	cfg.Requests = 50
	r, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || r.Acknowledged != 50 {
		t.Errorf("acknowledged %d, errors %v, lost %d; want 50, none, 0", r.Acknowledged, r.Errors, r.LostUpdates)
	}
	if f.Gzipped < r.Acknowledged {
		t.Errorf("%d gzip bodies for %d hashes probes; the generator did not ask for gzip", f.Gzipped, r.Acknowledged)
	}
}

func TestSeedBatchesAndPrunes(t *testing.T) {
	f, srv := loadgentest.New(t)
	c := &client{base: srv.URL, token: loadgentest.Token, repo: "acme/api", http: newHTTPClient(1, time.Minute)}
	if err := c.seed(t.Context(), 1000, DefaultEntryBytes); err != nil {
		t.Fatal(err)
	}
	if f.MaxPutBody > MaxSeedBody || f.PutsOK < 10 {
		t.Errorf("%d PUTs, largest %d bytes; want ≥ 10 of ≤ %d", f.PutsOK, f.MaxPutBody, MaxSeedBody)
	}
	if n := len(f.Live()); n != 1000 {
		t.Fatalf("%d live entries, want 1000", n)
	}
	puts := f.PutsOK
	if err := c.seed(t.Context(), 1000, DefaultEntryBytes); err != nil {
		t.Fatal(err)
	}
	if f.PutsOK != puts {
		t.Errorf("reseeding an up-to-date repo sent %d PUTs", f.PutsOK-puts)
	}
	if err := c.seed(t.Context(), 3, DefaultEntryBytes); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{entryKey(0), entryKey(1), entryKey(2)}, f.Live()); diff != "" {
		t.Errorf("live keys after reseeding with 3 (-want +got):\n%s", diff)
	}
}

func TestSuite(t *testing.T) {
	_, srv := loadgentest.New(t)
	base := Config{Server: srv.URL, Token: loadgentest.Token, Concurrency: 2, Requests: 30}
	var reported []string
	cases := []Case{{Scenario: GetFull, Entries: 5}, {Scenario: CAS, Entries: 5, Concurrency: 3}}
	rs, err := Suite(t.Context(), base, cases, 3, func(r Result) { reported = append(reported, r.Scenario) })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{GetFull, CAS}, reported); diff != "" {
		t.Errorf("reported (-want +got):\n%s", diff)
	}
	for _, r := range rs {
		if r.Runs != 3 || !r.OK() || r.Requests < 30 {
			t.Errorf("%s: runs %d, ok %v, requests %d", r.Scenario, r.Runs, r.OK(), r.Requests)
		}
	}
	if rs[1].Concurrency != 3 || rs[1].Acknowledged != 30 {
		t.Errorf("cas: concurrency %d, acknowledged %d", rs[1].Concurrency, rs[1].Acknowledged)
	}
}

func TestMedian(t *testing.T) {
	rs := []Result{
		{RPS: 300, P99ms: 1, Errors: map[string]int{"500": 1}},
		{RPS: 100, P99ms: 9, LostUpdates: 2},
		{RPS: 200, P99ms: 5},
	}
	m := Median(rs)
	got := []any{m.RPS, m.P99ms, m.Errors["500"], m.LostUpdates, m.Runs}
	if diff := cmp.Diff([]any{200.0, 5.0, 1, 2, 3}, got); diff != "" {
		t.Errorf("median (-want +got):\n%s", diff)
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	if p50, p99 := percentile(d, .5), percentile(d, .99); p50 != 50 || p99 != 99 {
		t.Errorf("p50 %v p99 %v, want 50 and 99", p50, p99)
	}
	if percentile(nil, .5) != 0 {
		t.Error("empty percentile not 0")
	}
}

func TestConfigErrors(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no server":        {Scenario: GetFull},
		"unknown scenario": {Server: "http://127.0.0.1:1", Scenario: "nope"},
		"tiny entries":     {Server: "http://127.0.0.1:1", Scenario: Put, EntryBytes: 10},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Run(t.Context(), cfg); !errors.Is(err, ErrConfig) {
				t.Errorf("err = %v, want ErrConfig", err)
			}
		})
	}
}

func TestReadMemory(t *testing.T) {
	m, err := ReadMemory(os.Getpid())
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if m.RSS < 1<<20 || m.File <= 0 || m.File > m.RSS {
		t.Errorf("own RSS %d bytes, %d of mapped files; want at least 1 MiB, and some of it the binary's", m.RSS, m.File)
	}
	if m.Anon <= 0 || m.Own() > m.RSS || m.Own()+m.File != m.RSS {
		t.Errorf("RssAnon %d, RssShmem %d, RssFile %d bytes; want some anonymous memory, the three adding up to VmRSS %d", m.Anon, m.Shmem, m.File, m.RSS)
	}
}

func TestEntryContent(t *testing.T) {
	a, b := entryContent("k.md", 1, 2048), entryContent("k.md", 2, 2048)
	if len(a) != 2048 || a == b {
		t.Errorf("len %d, distinct %v", len(a), a != b)
	}
}

func TestParseStatCPU(t *testing.T) {
	// A command name with spaces and a parenthesis; utime 250, stime 50.
	line := []byte("4242 (tm (x) y) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 50 0 0 20 0 9 0 1234 0 0\n")
	got, err := parseStatCPU(line)
	if err != nil || got != 3*time.Second {
		t.Errorf("parseStatCPU = %v, %v; want 3s", got, err)
	}
	for _, bad := range []string{"", "4242 (x) S 1 2", "4242 (x) S 1 4242 4242 0 -1 4194560 900 0 0 0 abc 50"} {
		if _, err := parseStatCPU([]byte(bad)); err == nil {
			t.Errorf("parseStatCPU(%q) gave no error", bad)
		}
	}
}

func TestReadCPUGrowsWithWork(t *testing.T) {
	before, err := ReadCPU(os.Getpid())
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var after time.Duration
	for deadline := time.Now().Add(10 * time.Second); after <= before && time.Now().Before(deadline); {
		for i := range 1_000_000 {
			sinkInt += i
		}
		if after, err = ReadCPU(os.Getpid()); err != nil {
			t.Fatal(err)
		}
	}
	if after <= before {
		t.Errorf("CPU time stayed at %v while spinning", before)
	}
}

var sinkInt int

func TestCPUPerOp(t *testing.T) {
	put := Result{Scenario: Put, Requests: 400}
	put.setCPU(200 * time.Millisecond)
	cas := Result{Scenario: CAS, Requests: 900, Acknowledged: 100}
	cas.setCPU(200 * time.Millisecond)
	none := Result{Scenario: CAS}
	none.setCPU(time.Second)
	if put.CPUms != 0.5 || cas.CPUms != 2 || none.CPUms != 0 {
		t.Errorf("cpu per op: put %v, cas %v, nothing acknowledged %v; want 0.5, 2 and 0", put.CPUms, cas.CPUms, none.CPUms)
	}
	if !strings.Contains(cas.String(), "cpu 2.000 ms/write") || !strings.Contains(put.String(), "cpu 0.500 ms/req") {
		t.Errorf("reports %q and %q", put.String(), cas.String())
	}
	if m := Median([]Result{put, {Scenario: Put, CPUms: 0.1}, {Scenario: Put, CPUms: 0.9}}); m.CPUms != 0.5 {
		t.Errorf("median cpu %v, want 0.5", m.CPUms)
	}
}

// TestFloorHandlerServesReadAndPutScenarios: every scenario but cas runs
// against the floor handler without an error.
func TestFloorHandlerServesReadAndPutScenarios(t *testing.T) {
	srv := httptest.NewServer(FloorHandler())
	t.Cleanup(srv.Close)
	for _, sc := range []string{GetFull, Get304, Hashes, Put} {
		r, err := Run(t.Context(), Config{Server: srv.URL, Token: "any", Scenario: sc, Concurrency: 2, Requests: 40})
		if err != nil || !r.OK() || r.Requests != 40 {
			t.Errorf("%s: %v, %d requests, errors %v", sc, err, r.Requests, r.Errors)
		}
	}
	resp, err := http.Get(srv.URL + "/api/v1/team-memory?repo=a/b")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a token: %d, want 401", resp.StatusCode)
	}
}

// TestCorpusContent: the search corpus is deterministic, of the size
// asked, and holds the identifiers the queries look for.
func TestCorpusContent(t *testing.T) {
	a, b := CorpusNote("loadgen/search-001", "k.md", 2048), CorpusNote("loadgen/search-001", "k.md", 2048)
	if a != b || len(a) != 2048 {
		t.Fatalf("corpus not deterministic or %d bytes", len(a))
	}
	if a == CorpusNote("loadgen/search-002", "k.md", 2048) {
		t.Error("two repositories hold the same note")
	}
	var all strings.Builder
	for i := range 200 {
		all.WriteString(CorpusNote("r", entryKey(i), 2048))
	}
	for _, s := range []string{"pool_max_conns", "server/postgres/write.go", "make release", "deploy"} {
		if !strings.Contains(all.String(), s) {
			t.Errorf("200 notes never hold %q", s)
		}
	}
}

// TestMCPRepliesAreRead: an MCP call answered 200 is still an error when
// the reply is a tool error, a JSON-RPC error or not JSON-RPC at all.
func TestMCPRepliesAreRead(t *testing.T) {
	fake, _ := loadgentest.New(t)
	var n atomic.Int64
	replies := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}`,
		`<html>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/mcp" {
			fake.ServeHTTP(w, r)
			return
		}
		if r.Header.Get("Mcp-Protocol-Version") == "" || !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			http.Error(w, "not an MCP request", http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, replies[n.Add(1)%int64(len(replies))])
	}))
	defer srv.Close()
	cfg := testConfig(srv, MCPRead)
	cfg.Concurrency, cfg.Requests, cfg.SearchRepos, cfg.Entries = 1, 8, 1, 2
	r, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"tool error": 2, "JSON-RPC error": 2, "not a JSON-RPC reply": 2}
	if diff := cmp.Diff(want, r.Errors); diff != "" || r.Requests != 8 {
		t.Errorf("%d requests, errors (-want +got):\n%s", r.Requests, diff)
	}
}
