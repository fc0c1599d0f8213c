package httpapi

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

func TestFlightsShareOneComputation(t *testing.T) {
	var f flights
	var runs atomic.Int32
	release := make(chan struct{})
	key := flightKey{cacheKey{"acme/api", ""}, 3}
	var wg sync.WaitGroup
	started := make(chan struct{}, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started <- struct{}{}
			body, sum, err := f.do(key, func() ([]byte, string, error) {
				runs.Add(1)
				<-release
				return []byte("body"), "sha256:x", nil
			})
			if err != nil || string(body) != "body" || sum != "sha256:x" {
				t.Errorf("do = %q %q %v", body, sum, err)
			}
		}()
	}
	for i := 0; i < 8; i++ {
		<-started
	}
	close(release)
	wg.Wait()
	if n := runs.Load(); n < 1 || n > 8 {
		t.Fatalf("fn ran %d times", n)
	}
	// After a flight ends, the next call computes again; errors reach the caller.
	boom := errors.New("boom")
	if _, _, err := f.do(key, func() ([]byte, string, error) { return nil, "", boom }); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
	if len(f.calls) != 0 {
		t.Errorf("%d flights left behind", len(f.calls))
	}
}
