package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSupervise starts a runner per key, stops those whose key goes away,
// retries a failed one only after the retry delay, and stops all when the
// context ends.
func TestSupervise(t *testing.T) {
	var mu sync.Mutex
	starts := map[string]int{}
	stopped := map[string]int{}
	want := map[string]bool{"a": true, "b": true, "bad": true}
	runner := func(key string) Runner {
		return func(ctx context.Context) error {
			mu.Lock()
			starts[key]++
			mu.Unlock()
			if key == "bad" {
				return errors.New("cannot lock")
			}
			<-ctx.Done()
			mu.Lock()
			stopped[key]++
			mu.Unlock()
			return nil
		}
	}
	load := func() (map[string]Runner, error) {
		mu.Lock()
		defer mu.Unlock()
		m := map[string]Runner{}
		for k, on := range want {
			if on {
				m[k] = runner(k)
			}
		}
		return m, nil
	}
	var exits []string
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		Supervise(ctx, load, 5*time.Millisecond, time.Hour, func(key string, err error) {
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				exits = append(exits, key)
			}
		})
		close(done)
	}()
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			ok := cond()
			mu.Unlock()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitUntil("a and b to start", func() bool { return starts["a"] == 1 && starts["b"] == 1 && starts["bad"] == 1 })
	mu.Lock()
	want["b"] = false
	mu.Unlock()
	waitUntil("b to stop", func() bool { return stopped["b"] == 1 })
	time.Sleep(50 * time.Millisecond) // several loads
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if starts["a"] != 1 || starts["b"] != 1 || stopped["a"] != 1 {
		t.Errorf("starts %v stopped %v; want each started once, a stopped at the end", starts, stopped)
	}
	if starts["bad"] != 1 || len(exits) != 1 || exits[0] != "bad" {
		t.Errorf("the failing runner started %d times, exits %v; want once (retry an hour later), reported once", starts["bad"], exits)
	}
}

// TestRunnerKey: the key changes with each of folder, repo, server, token
// and the set of checkouts, never shows the token, and gives its folder
// back.
func TestRunnerKey(t *testing.T) {
	cos := []string{"/src/api", "/src/api-wt"}
	base := RunnerKey("/f", "acme/api", "http://s", "tok-secret", "", cos)
	if k := RunnerKey("/f", "acme/api", "http://s", "tok-secret", "", []string{"/src/api-wt", "/src/api"}); k != base {
		t.Errorf("the checkouts' order changed the key")
	}
	for _, k := range []string{
		RunnerKey("/g", "acme/api", "http://s", "tok-secret", "", cos),
		RunnerKey("/f", "acme/web", "http://s", "tok-secret", "", cos),
		RunnerKey("/f", "acme/api", "http://t", "tok-secret", "", cos),
		RunnerKey("/f", "acme/api", "http://s", "tok-other", "", cos),
		RunnerKey("/f", "acme/api", "http://s", "", "/token", cos),
		RunnerKey("/f", "acme/api", "http://s", "tok-secret", "", cos[:1]),
	} {
		if k == base {
			t.Errorf("key %q equals the base key", k)
		}
	}
	if strings.Contains(base, "tok-secret") {
		t.Errorf("key %q shows the token", base)
	}
	if got := RunnerFolder(base); got != "/f" {
		t.Errorf("RunnerFolder = %q, want /f", got)
	}
}
