package httpapi

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
)

// anonymous is the caller of --insecure-no-auth mode.
var anonymous = server.Principal{Subject: "anonymous", Grants: []server.Grant{{Glob: []string{"**"}, Perm: server.PermAdmin}}}

// principal returns the authenticated caller.
func principal(ctx context.Context) server.Principal {
	return infoOf(ctx).principal
}

// authenticate verifies the bearer token and applies the rate limit of its
// subject. The token itself is never logged or echoed.
func (h *handler) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := anonymous
		if !h.noAuth {
			token, ok := auth.BearerToken(r.Header.Get("Authorization"))
			if !ok {
				h.writeError(w, r, &auth.AuthError{Reason: "send an Authorization: Bearer <token> header"})
				return
			}
			var err error
			if p, err = h.auth.Authenticate(r.Context(), token); err != nil {
				h.writeError(w, r, err)
				return
			}
		}
		info := infoOf(r.Context())
		info.subject = p.Subject
		if wait, ok := h.limiter.allow(p.Subject); !ok {
			h.writeError(w, r, errRateLimited{retryAfter: retryAfterSeconds(wait)})
			return
		}
		info.principal = p
		next.ServeHTTP(w, r)
	})
}

// stillValid returns a check that re-verifies the bearer token of a
// long-lived request (an events stream, which may outlive the request's
// context): false once the token is revoked or has expired. A store that
// cannot be read does not end the stream.
func (h *handler) stillValid(r *http.Request) func() bool {
	if h.noAuth {
		return func() bool { return true }
	}
	token, _ := auth.BearerToken(r.Header.Get("Authorization"))
	return func() bool {
		_, err := h.auth.Authenticate(context.Background(), token)
		return !errors.Is(err, server.ErrUnauthenticated)
	}
}

// limiter holds one token bucket per subject.
type limiter struct {
	limit rate.Limit
	burst int
	mu    sync.Mutex
	subs  map[string]*rate.Limiter
}

// maxSubjects bounds the limiter map; past it, idle buckets are dropped.
const maxSubjects = 100_000

func newLimiter(perSecond float64) *limiter {
	if perSecond <= 0 {
		return nil
	}
	return &limiter{limit: rate.Limit(perSecond), burst: max(1, int(2*perSecond)), subs: map[string]*rate.Limiter{}}
}

// allow takes one token for subject; when none is left it reports how long
// until one is.
func (l *limiter) allow(subject string) (time.Duration, bool) {
	if l == nil {
		return 0, true
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
		return d, false
	}
	return 0, true
}
