package webui

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpkit"
)

// The outcome of a form (a restore) is shown on the page the browser is
// sent to afterwards from a flash: a sealed cookie bound to the session,
// the repository and the key, read once. Nothing of the notice comes from
// the URL, so no link can make a page claim a restore that did not happen.

const (
	flashCookie = "teammem_flash"
	flashTTL    = time.Minute
)

// flash is a restore's outcome, for the entry page that follows it.
type flash struct {
	Session   string `json:"s"` // the id of the session it was set in
	Repo      string `json:"r"`
	Key       string `json:"k"`
	From      int64  `json:"f"`           // the version whose content was put back
	Restored  int64  `json:"v,omitempty"` // the version the restore made
	Unchanged bool   `json:"u,omitempty"` // the entry already held that content
	Expires   int64  `json:"e"`
}

// setFlash sets f for the next page of this session.
func (u *UI) setFlash(w http.ResponseWriter, r *http.Request, f flash) error {
	f.Session = u.sessions.id(callerOf(r.Context()).sess)
	f.Expires = u.sessions.now().Add(flashTTL).Unix()
	return u.sessions.seal(w, r, flashCookie, f, flashTTL)
}

// takeFlash returns the flash set for this session's page of repo's key
// (and clears it), or nil.
func (u *UI) takeFlash(w http.ResponseWriter, r *http.Request, repo, key string) *flash {
	var f flash
	if !u.sessions.unseal(r, flashCookie, &f) || f.Session != u.sessions.id(callerOf(r.Context()).sess) ||
		u.sessions.now().Unix() >= f.Expires || f.Repo != repo || f.Key != key {
		return nil
	}
	http.SetCookie(w, cookie(r, flashCookie, "", -1))
	return &f
}

// restoreRefused is a restore the Service left out (the credential scan,
// or another per-entry refusal): nothing changed.
type restoreRefused struct {
	from    int64
	skipped server.Skipped
}

func (e *restoreRefused) Error() string {
	return fmt.Sprintf("restore of version %d of %s refused: %s", e.from, e.skipped.Key, e.skipped.Reason)
}

// message says what was refused and why, naming the credential rule, never
// the credential.
func (e *restoreRefused) message() string {
	if e.skipped.Reason == server.ReasonSecretDetected {
		return fmt.Sprintf("Version %d of %s was not restored: it holds what looks like a credential (%s, rule %s), "+
			"which this server refuses to store. Nothing changed; put the entry back without the credential from your team folder instead.",
			e.from, e.skipped.Key, e.skipped.Label, e.skipped.RuleID)
	}
	return fmt.Sprintf("Version %d of %s was not restored: %s. Nothing changed.", e.from, e.skipped.Key, e.skipped.Message)
}

// logRefused logs a refused restore: who, which entry and version, why
// (the rule id), never content.
func (u *UI) logRefused(ctx context.Context, repo string, e *restoreRefused) {
	u.metrics.EntrySkipped(string(e.skipped.Reason))
	u.log.LogAttrs(ctx, slog.LevelWarn, "restore refused", slog.String("request_id", httpkit.RequestID(ctx)),
		slog.String("subject", callerOf(ctx).p.Subject), slog.String("repo", repo), slog.String("key", e.skipped.Key),
		slog.Int64("version", e.from), slog.String("reason", string(e.skipped.Reason)), slog.String("rule_id", e.skipped.RuleID))
}
