package loadgen

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// worker is one concurrent loop's tally; only its goroutine touches it.
type worker struct {
	id        int
	latencies []time.Duration
	errors    map[string]int
	requests  int
	acked     []ack // cas
	conflicts int   // cas
}

// ack is one acknowledged cas write.
type ack struct {
	key     string
	gen     int64
	version int64
}

// send times one request and counts it; a status not in want is an error.
// It returns the reply and whether the status was wanted. A request cut
// short by the caller's cancellation is not counted.
func (w *worker) send(ctx context.Context, c *client, method, target string, h http.Header, body []byte, keep bool, want ...int) (reply, bool) {
	start := time.Now()
	r, err := c.do(ctx, method, target, h, body, keep)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return r, false
		}
		w.requests++
		w.errors["transport"]++
		return r, false
	}
	w.requests++
	w.latencies = append(w.latencies, time.Since(start))
	for _, s := range want {
		if r.status == s {
			return r, true
		}
	}
	w.errors[strconv.Itoa(r.status)]++
	return r, false
}
