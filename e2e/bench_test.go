//go:build unix

package e2e

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/proctest"
)

// BenchmarkPropagation measures the time from a write in one agent's
// folder to the file in the other's (debounce 300 ms, poll 1 s). Run with
// -benchtime=20x; it reports the median and the 95th percentile.
func BenchmarkPropagation(b *testing.B) {
	srv := startServer(b, b.TempDir(), "127.0.0.1:0")
	a := startAgent(b, srv, b.TempDir(), b.TempDir())
	o := startAgent(b, srv, b.TempDir(), b.TempDir())
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		key, content := fmt.Sprintf("lat/%04d.md", i), fmt.Sprintf("write %d at %s\n", i, time.Now())
		start := time.Now()
		write(b, a.dir, key, content)
		proctest.WaitFor(b, key+" in the other folder", func() bool { return read(o.dir, key) == content })
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, lat, 50, 95)
}

// reportPercentiles reports the given percentiles of lat in milliseconds,
// as "p50-ms" and so on.
func reportPercentiles(b *testing.B, lat []time.Duration, percents ...int) {
	slices.Sort(lat)
	for _, p := range percents {
		i := max(0, (len(lat)*p-1)/100)
		b.ReportMetric(float64(lat[i].Microseconds())/1000, fmt.Sprintf("p%d-ms", p))
	}
}

// BenchmarkPullOnStart1000 measures `teammem-agent pull` of 1,000 entries
// of 2 KB into an empty folder, process start to exit.
func BenchmarkPullOnStart1000(b *testing.B) {
	srv := startServer(b, b.TempDir(), "127.0.0.1:0")
	putAll(b, srv, generation(0, 1000))
	b.ResetTimer()
	for range b.N {
		dir, state := b.TempDir(), b.TempDir()
		if code, p := runAgent(b, srv, dir, state, "pull"); code != 0 {
			b.Fatalf("pull: exit %d\n%s", code, p.stderr)
		}
	}
	b.StopTimer()
}

// synced1000 starts a server holding 1,000 entries and pulls them into a
// folder; it returns the server and the folder and state directories.
func synced1000(t testing.TB) (*serverProc, string, string) {
	t.Helper()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	putAll(t, srv, generation(0, 1000))
	dir, state := t.TempDir(), t.TempDir()
	if code, p := runAgent(t, srv, dir, state, "pull"); code != 0 {
		t.Fatalf("pull: exit %d\n%s", code, p.stderr)
	}
	return srv, dir, state
}

// TestPushOneOf1000IsOnePut: editing one file of 1,000 pushes one PUT
// carrying one entry (server metrics and the agent's report).
func TestPushOneOf1000IsOnePut(t *testing.T) {
	srv, dir, state := synced1000(t)
	before := scrape(t, srv)
	write(t, dir, "topic-007/notes-140.md", "edited\n")
	code, p := runAgent(t, srv, dir, state, "push")
	if code != 0 {
		t.Fatalf("push: exit %d\n%s", code, p.stderr)
	}
	after := scrape(t, srv)
	if d := after.entriesWritten - before.entriesWritten; d != 1 {
		t.Errorf("teammem_entries_written_total grew by %v, want 1", d)
	}
	if d := after.puts - before.puts; d != 1 {
		t.Errorf("%v PUT requests, want 1", d)
	}
	rs := p.reports(t)
	if len(rs) != 1 || !slices.Equal(rs[0].Pushed, []string{"topic-007/notes-140.md"}) {
		t.Errorf("reports %+v", rs)
	}
}

// BenchmarkPushOneOf1000 measures `teammem-agent push` after editing one
// file of 1,000, process start to exit.
func BenchmarkPushOneOf1000(b *testing.B) {
	srv, dir, state := synced1000(b)
	b.ResetTimer()
	for i := range b.N {
		write(b, dir, "topic-007/notes-140.md", fmt.Sprintf("edit %d\n", i))
		if code, p := runAgent(b, srv, dir, state, "push"); code != 0 {
			b.Fatalf("push: exit %d\n%s", code, p.stderr)
		}
	}
}

// metrics are the server counters the tests read.
type metrics struct{ entriesWritten, puts float64 }

// scrape reads the counters the tests need from the server's /metrics.
func scrape(t testing.TB, srv *serverProc) metrics {
	t.Helper()
	var m metrics
	for series, v := range readMetrics(t, srv) {
		switch {
		case series == "teammem_entries_written_total":
			m.entriesWritten = v
		case strings.HasPrefix(series, "teammem_http_request_duration_seconds_count{") && strings.Contains(series, `method="PUT"`):
			m.puts += v
		}
	}
	return m
}

// readMetrics reads the server's /metrics: each series (name and labels, as
// written) with its value.
func readMetrics(t testing.TB, srv *serverProc) map[string]float64 {
	t.Helper()
	resp, err := http.Get(srv.url() + api.PathMetrics)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		sp := strings.LastIndexByte(line, ' ') // label values may hold spaces
		if sp < 0 || strings.HasPrefix(line, "#") {
			continue
		}
		m[line[:sp]], _ = strconv.ParseFloat(line[sp+1:], 64)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading /metrics: %v", err)
	}
	return m
}

// TestIdleAgentRSS: an idle agent holding 1,000 entries stays under 30 MB
// of resident memory.
func TestIdleAgentRSS(t *testing.T) {
	srv, dir, state := synced1000(t)
	a := startAgent(t, srv, dir, state, "--poll", "60s")
	time.Sleep(6 * time.Second) // idle: past the first cycle; not an assertion
	rss := procStatusKB(t, a.cmd.Process.Pid, "VmRSS")
	t.Logf("idle agent with 1,000 entries: RSS %.1f MB", float64(rss)/1024)
	if rss > 30*1024 {
		t.Errorf("RSS %d kB, want ≤ 30 MB", rss)
	}
}

// TestSoakIdleAgentCPU (SOAK=1) measures an idle agent's CPU time over 60 s
// (--poll 60s: one poll answered 304, nothing changed). The target is 5 ms
// (3-4.5 ms measured); the bound is twice that, for shared machines.
func TestSoakIdleAgentCPU(t *testing.T) {
	if !soak() {
		t.Skip("takes a minute; run with SOAK=1")
	}
	srv, dir, state := synced1000(t)
	a := startAgent(t, srv, dir, state, "--poll", "60s")
	pid := a.cmd.Process.Pid
	time.Sleep(6 * time.Second) // idle: past the first cycle; not an assertion
	before, ticks := cpuTime(t, pid), cpuTicks(t, pid)
	time.Sleep(60 * time.Second)
	used, usedTicks := cpuTime(t, pid)-before, cpuTicks(t, pid)-ticks
	t.Logf("idle agent: %v of CPU per minute (%d clock ticks)", used.Round(10*time.Microsecond), usedTicks)
	if used > 10*time.Millisecond {
		t.Errorf("idle agent used %v of CPU in a minute, want ≤ 5 ms (10 ms with noise)", used)
	}
}

// cpuTime returns the time the threads of PID spent on a CPU, from
// /proc/PID/task/*/schedstat (nanoseconds, unlike the clock ticks of
// /proc/PID/stat).
func cpuTime(t testing.TB, pid int) time.Duration {
	t.Helper()
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var total time.Duration
	for _, task := range tasks {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, task.Name()))
		if err != nil {
			continue // the thread exited meanwhile
		}
		ns, _ := strconv.ParseInt(strings.Fields(string(data))[0], 10, 64)
		total += time.Duration(ns)
	}
	return total
}

// procStatusKB reads a "kB" field of /proc/PID/status.
func procStatusKB(t testing.TB, pid int, field string) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// cpuTicks returns utime+stime of /proc/PID/stat, in clock ticks.
func cpuTicks(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	// Fields after the parenthesised command name; utime and stime are
	// fields 14 and 15 of the line, 12 and 13 after ")".
	rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
	f := strings.Fields(rest)
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return u + s
}
