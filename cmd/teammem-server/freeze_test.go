package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/pgtest"
)

// TestFrozenPostgres freezes the database server (SIGSTOP on the postmaster
// and every backend) under eight CAS writers: every request is answered
// within the request timeout and a second, those that fail with 503 and
// Retry-After; after SIGCONT the writes resume without a restart and no
// acknowledged write is lost.
func TestFrozenPostgres(t *testing.T) {
	cluster := pgtest.StartCluster(t)
	dir := t.TempDir()
	const timeout = 2 * time.Second
	base, _ := startServer(t, dir, "--database-url", cluster.URL, "--migrate",
		"--request-timeout", timeout.String(), "--rate-limit", "0")
	admin := adminToken(t, dir)
	url := base + api.PathTeamMemory + "?repo=acme/frozen"
	hc := &http.Client{Timeout: 4 * timeout} // a hang shows as a client timeout

	type outcome struct {
		status     int
		retryAfter string
		took       time.Duration
		err        error
	}
	do := func(method, body, ifMatch string) (outcome, []byte) {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+admin)
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
		}
		start := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			return outcome{err: err, took: time.Since(start)}, nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return outcome{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), took: time.Since(start)}, b
	}
	if o, b := do(http.MethodPut, `{"entries":{"seed.md":"x"}}`, ""); o.status != 200 {
		t.Fatalf("seed PUT = %+v %s", o, b)
	}

	var (
		mu       sync.Mutex
		frozen   bool
		problems []string
		acked    = map[int]int{} // writer → last acknowledged counter
	)
	check := func(what string, o outcome) {
		mu.Lock()
		defer mu.Unlock()
		if !frozen {
			return
		}
		switch {
		case o.err != nil:
			problems = append(problems, fmt.Sprintf("%s: no answer after %v: %v", what, o.took, o.err))
		case o.took > timeout+time.Second:
			problems = append(problems, fmt.Sprintf("%s: answered %d after %v (> %v)", what, o.status, o.took, timeout+time.Second))
		case o.status == http.StatusServiceUnavailable && o.retryAfter == "":
			problems = append(problems, what+": 503 without Retry-After")
		case o.status != 200 && o.status != 412 && o.status != 503:
			problems = append(problems, fmt.Sprintf("%s: status %d", what, o.status))
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; ; {
				select {
				case <-stop:
					return
				default:
				}
				o, b := do(http.MethodGet, "", "")
				check("GET", o)
				if o.status != 200 {
					time.Sleep(50 * time.Millisecond)
					continue
				}
				var got api.TeamMemory
				_ = json.Unmarshal(b, &got)
				body := fmt.Sprintf(`{"entries":{"w%d.md":"%d"}}`, w, n)
				o, _ = do(http.MethodPut, body, api.ETag(got.Checksum))
				check("PUT", o)
				if o.status == 200 {
					mu.Lock()
					acked[w] = n
					mu.Unlock()
					n++
				}
			}
		}()
	}
	time.Sleep(time.Second)
	mu.Lock()
	frozen = true
	mu.Unlock()
	cluster.Freeze(t)
	time.Sleep(3 * timeout)
	mu.Lock()
	frozen = false
	mu.Unlock()
	cluster.Thaw()

	// Writes resume without a restart.
	deadline := time.Now().Add(30 * time.Second)
	var o outcome
	for time.Now().Before(deadline) {
		if o, _ = do(http.MethodPut, `{"entries":{"after.md":"thawed"}}`, ""); o.status == 200 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if o.status != 200 {
		t.Errorf("no PUT succeeded within 30 s of SIGCONT: last %+v", o)
	}
	for _, p := range problems {
		t.Error(p)
	}
	_, b := do(http.MethodGet, "", "")
	var final api.TeamMemory
	if err := json.Unmarshal(b, &final); err != nil {
		t.Fatalf("final GET: %v %s", err, b)
	}
	for w, n := range acked {
		key := fmt.Sprintf("w%d.md", w)
		if got, _ := strconv.Atoi(final.Content.Entries[key]); got < n {
			t.Errorf("%s = %d, but %d was acknowledged", key, got, n)
		}
	}
}
