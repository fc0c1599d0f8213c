package postgres

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
)

// TestStateReadsShareQueries: reads that arrive while a query is in flight
// are not answered by it (it may predate them) but share the next one; a
// burst of reads costs two queries, not one each.
func TestStateReadsShareQueries(t *testing.T) {
	var r stateReads
	var queries atomic.Int64
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	query := func(context.Context, string) (server.RepoState, error) {
		n := queries.Add(1)
		started <- struct{}{}
		if n == 1 {
			<-release
		}
		return server.RepoState{Version: n}, nil
	}
	ctx := context.Background()
	first := make(chan server.RepoState, 1)
	go func() {
		st, _ := r.read(ctx, "acme/api", query)
		first <- st
	}()
	<-started // the first query is in flight
	const burst = 20
	var wg sync.WaitGroup
	got := make([]int64, burst)
	var joined sync.WaitGroup
	joined.Add(burst)
	for i := range burst {
		wg.Go(func() {
			joined.Done()
			st, err := r.read(ctx, "acme/api", query)
			if err != nil {
				t.Error(err)
			}
			got[i] = st.Version
		})
	}
	joined.Wait()
	for { // until every read of the burst waits
		r.mu.Lock()
		n := len(r.waiting["acme/api"])
		r.mu.Unlock()
		if n == burst {
			break
		}
		<-time.After(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if st := <-first; st.Version != 1 {
		t.Errorf("the first read got the answer of query %d", st.Version)
	}
	for i, v := range got {
		if v != 2 {
			t.Fatalf("read %d of the burst got the answer of query %d, want 2 (the one sent after it arrived)", i, v)
		}
	}
	if n := queries.Load(); n != 2 {
		t.Errorf("%d queries for %d reads, want 2", n, burst+1)
	}
	r.wait()
	if _, running := r.waiting["acme/api"]; running {
		t.Error("the reader outlived its last read")
	}
}
