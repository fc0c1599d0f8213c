package agent

import (
	"errors"
	"fmt"
	"time"

	"github.com/teammem/teammem/client"
)

// ExpiryWarning is how long before the token expires the agent starts
// saying so: in each engine's report once per expiry (run logs it), and in
// status.
const ExpiryWarning = 7 * 24 * time.Hour

// UnsyncedNoteAfter is how long after the server started refusing the
// token (from the token's expiry when it tells one) the block kept from
// the team folder on disk says it is out of date.
const UnsyncedNoteAfter = 24 * time.Hour

// noteRefusal records how the server answered the last pull: refused the
// repository to the token (403: unreadable), refused the token itself (401:
// since when), or took the token; a pull that got no answer (the network,
// a 5xx) leaves the token's standing as it was.
func (e *Engine) noteRefusal(err error) {
	e.unreadable = errors.Is(err, client.ErrForbidden)
	switch {
	case errors.Is(err, client.ErrUnauthorized):
		if e.refusedAt.IsZero() {
			e.refusedAt = e.cfg.Now()
		}
	case err == nil, errors.Is(err, client.ErrNotModified), errors.Is(err, client.ErrNotFound), errors.Is(err, client.ErrForbidden):
		e.refusedAt = time.Time{}
	}
}

// unsyncedSince is when the team folder stopped being synced because the
// server refuses the token: the token's expiry when it tells one and that
// is earlier, else the first refusal; zero while the token is accepted.
func (e *Engine) unsyncedSince() time.Time {
	since := e.refusedAt
	if since.IsZero() || e.cfg.TokenExpiry == nil {
		return since
	}
	if exp, ok := e.cfg.TokenExpiry(); ok && exp.Before(since) {
		return exp
	}
	return since
}

// synced reports whether the team folder was ever in step with the server
// (the journal holds a version or an entry): a block rendered from it then
// shows what the team shared, not an empty index.
func (e *Engine) synced() bool {
	return e.cfg.Journal.Version > 0 || len(e.cfg.Journal.Entries) > 0
}

// warnExpiry says in r, once per expiry, that the token expires within
// ExpiryWarning and what gets a new one.
func (e *Engine) warnExpiry(r *Report) {
	if e.cfg.TokenExpiry == nil {
		return
	}
	exp, ok := e.cfg.TokenExpiry()
	now := e.cfg.Now()
	if !ok || exp.Equal(e.expirySaid) || !exp.After(now) {
		return // unknown, said, or past (the refusal says it then)
	}
	if note := TokenNote(exp, now, e.cfg.Relogin); note != "" {
		e.expirySaid = exp
		r.Token = "the token " + note
	}
}

// TokenNote says what to do about a token that expires at exp, seen at
// now: that it expired, or expires within ExpiryWarning, and fix, what
// gets a new one ("run teammem-agent login --server URL"); "" while the
// expiry is further off.
func TokenNote(exp, now time.Time, fix string) string {
	at := exp.UTC().Format("2006-01-02 15:04 MST")
	switch {
	case !exp.After(now):
		return fmt.Sprintf("expired on %s: %s", at, fix)
	case exp.Sub(now) <= ExpiryWarning:
		return fmt.Sprintf("expires on %s (in %s): before then, %s", at, roughly(exp.Sub(now)), fix)
	}
	return ""
}

// roughly says a duration in whole days, hours or minutes.
func roughly(d time.Duration) string {
	n, unit := int(d.Minutes()), "minute"
	switch {
	case d >= 48*time.Hour:
		n, unit = int(d.Hours()/24), "day"
	case d >= 2*time.Hour:
		n, unit = int(d.Hours()), "hour"
	case n < 1:
		return "less than a minute"
	}
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
