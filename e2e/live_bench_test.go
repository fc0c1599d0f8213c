//go:build unix

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/proctest"
)

// BenchmarkLiveEdit measures an edit in one agent's folder until the file
// is on the teammate's disk, both agents with --debounce 300ms --poll 60s
// on one embedded server: the event stream carries it, not the poll. At
// least 50 edits.
func BenchmarkLiveEdit(b *testing.B) {
	srv := startServer(b, b.TempDir(), "127.0.0.1:0")
	a := startAgent(b, srv, b.TempDir(), b.TempDir(), "--poll", "60s")
	o := startAgent(b, srv, b.TempDir(), b.TempDir(), "--poll", "60s")
	var lat []time.Duration
	b.ResetTimer()
	for i := range max(b.N, 50) {
		key, content := fmt.Sprintf("live/%04d.md", i), fmt.Sprintf("edit %d at %s\n", i, time.Now())
		start := time.Now()
		write(b, a.dir, key, content)
		for read(o.dir, key) != content {
			if time.Since(start) > proctest.WaitTimeout {
				b.Fatalf("edit %d not on the teammate's disk after %v", i, proctest.WaitTimeout)
			}
			time.Sleep(2 * time.Millisecond)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, lat, 50, 99)
}

// subscriber is one raw SSE connection that records when it saw each
// event.
type subscriber struct {
	conn net.Conn
	seen chan time.Time // the arrival of each event
}

// next waits up to 30 s for the subscriber's next event and returns how
// long after start it arrived.
func (s *subscriber) next(b *testing.B, start time.Time) time.Duration {
	select {
	case at := <-s.seen:
		return at.Sub(start)
	case <-time.After(30 * time.Second):
		b.Fatal("a subscriber got no event within 30 s")
		return 0
	}
}

// subscribe opens GET .../events on addr with a bare TCP connection (ten
// thousand of them must stay cheap on the benchmark's side too) and waits
// for the stream's first frame.
func subscribe(b *testing.B, addr string) *subscriber {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(conn, "GET %s?repo=%s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", api.PathEvents, repo, addr)
	rd := bufio.NewReaderSize(conn, 512)
	status, err := rd.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		b.Fatalf("subscribe: %q, %v", status, err)
	}
	for { // headers, then the retry advice's blank line
		line, err := rd.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		if strings.HasPrefix(line, "retry:") {
			break
		}
	}
	s := &subscriber{conn: conn, seen: make(chan time.Time, 16)}
	go func() {
		defer close(s.seen)
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			if strings.HasPrefix(line, "id: ") {
				s.seen <- time.Now()
			}
		}
	}()
	return s
}

// raiseFileLimit lifts the soft limit on open files to the hard one.
func raiseFileLimit(b *testing.B, need uint64) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Fatal(err)
	}
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Fatal(err)
	}
	if lim.Cur < need {
		b.Skipf("open files limited to %d; %d needed", lim.Cur, need)
	}
}

// BenchmarkFanout10k opens 10,000 event streams on one embedded server and
// measures one PUT until every stream has its event (p50/p99 over the
// streams), the server's RSS with the streams open, and its CPU while they
// idle for 30 s (heartbeats included).
func BenchmarkFanout10k(b *testing.B) {
	streams := 10_000
	if n, err := strconv.Atoi(os.Getenv("FANOUT_STREAMS")); err == nil {
		streams = n
	}
	raiseFileLimit(b, uint64(streams)+1000)
	srv := startServer(b, b.TempDir(), "127.0.0.1:0", "--max-streams-per-subject", "0", "--max-connections", "0")
	subs := make([]*subscriber, 0, streams)
	opened := time.Now()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 50; w++ { // dial in parallel
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < streams/50; i++ {
				s := subscribe(b, srv.addr)
				mu.Lock()
				subs = append(subs, s)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	b.Logf("%d streams open after %v", len(subs), time.Since(opened))
	defer func() {
		for _, s := range subs {
			s.conn.Close()
		}
	}()
	pid := srv.cmd.Process.Pid
	b.ResetTimer()
	var lat []time.Duration
	for i := range b.N {
		start := time.Now()
		putAll(b, srv, map[string]string{"fanout.md": fmt.Sprint("put ", i)})
		b.Logf("PUT answered after %v", time.Since(start))
		lat = lat[:0]
		for _, s := range subs {
			lat = append(lat, s.next(b, start))
		}
	}
	b.StopTimer()
	reportPercentiles(b, lat, 50, 99)
	reportServerMemory(b, srv)
	before := cpuTime(b, pid)
	time.Sleep(30 * time.Second)
	idle := cpuTime(b, pid) - before
	b.ReportMetric(100*idle.Seconds()/30, "idle-CPU-%")
}

// BenchmarkReplicaEvent measures a PUT through replica 1 until its event
// arrives on a stream of replica 3, three server processes on one
// Postgres database (LISTEN/NOTIFY between them). At least 50 PUTs.
func BenchmarkReplicaEvent(b *testing.B) {
	url := pgtest.URL(b)
	r1 := startServer(b, b.TempDir(), "127.0.0.1:0", "--database-url", url, "--migrate")
	startServer(b, b.TempDir(), "127.0.0.1:0", "--database-url", url)
	r3 := startServer(b, b.TempDir(), "127.0.0.1:0", "--database-url", url)
	proctest.WaitFor(b, "replica 3 to listen", func() bool { return r3.api.Readyz(context.Background()) == nil })
	s := subscribe(b, r3.addr)
	defer s.conn.Close()
	var lat []time.Duration
	b.ResetTimer()
	for i := range max(b.N, 50) {
		start := time.Now()
		putAll(b, r1, map[string]string{"r.md": fmt.Sprint("put ", i)})
		lat = append(lat, s.next(b, start))
	}
	b.StopTimer()
	reportPercentiles(b, lat, 50, 99)
}

// reportServerMemory reports the server's resident memory and its Go heap
// and stacks in use (from /metrics), in MB.
func reportServerMemory(b *testing.B, srv *serverProc) {
	b.ReportMetric(float64(procStatusKB(b, srv.cmd.Process.Pid, "VmRSS"))/1024, "server-RSS-MB")
	m := readMetrics(b, srv)
	for _, name := range []string{"go_memstats_heap_inuse_bytes", "go_memstats_stack_inuse_bytes"} {
		v, ok := m[name]
		if !ok {
			b.Fatalf("no %s in /metrics", name)
		}
		b.ReportMetric(v/(1<<20), strings.TrimPrefix(strings.TrimSuffix(name, "_bytes"), "go_memstats_")+"-MB")
	}
}
