package httpkit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter holds one token bucket per subject; the API and the web UI share
// one, so a subject's requests count once whichever surface they use. A nil
// Limiter allows everything.
type Limiter struct {
	limit rate.Limit
	burst int
	mu    sync.Mutex
	subs  map[string]*rate.Limiter
}

// maxSubjects bounds the limiter map; past it, idle buckets are dropped.
const maxSubjects = 100_000

// NewLimiter allows perSecond requests per subject with a burst of twice
// that; 0 or less returns nil (no limit).
func NewLimiter(perSecond float64) *Limiter {
	if perSecond <= 0 {
		return nil
	}
	return &Limiter{limit: rate.Limit(perSecond), burst: max(1, int(2*perSecond)), subs: map[string]*rate.Limiter{}}
}

// Allow takes one token for subject; when none is left it returns the
// refusal to answer with (a RateLimitedError naming when one is).
func (l *Limiter) Allow(subject string) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	lim := l.subs[subject]
	if lim == nil {
		if len(l.subs) >= maxSubjects {
			l.subs = map[string]*rate.Limiter{}
		}
		lim = rate.NewLimiter(l.limit, l.burst)
		l.subs[subject] = lim
	}
	l.mu.Unlock()
	now := time.Now()
	res := lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return RateLimitedError{RetryAfter: RetryAfterSeconds(d)}
	}
	return nil
}

// RetryAfterSeconds rounds a delay up to whole seconds, at least 1.
func RetryAfterSeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}
