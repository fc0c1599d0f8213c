package oauth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/teammem/teammem/server"
)

// sessionActs returns the OAuth session acts of the server's audit chain,
// in order, one line each: action, actor (subject/surface/credential kind)
// and why, when the server said.
func sessionActs(t testing.TB, s server.Store) []string {
	t.Helper()
	log, ok := s.(server.AuditLog)
	if !ok {
		t.Fatalf("%T keeps no audit log", s)
	}
	var acts []string
	err := log.AuditEntries(context.Background(), server.AuditQuery{Chain: server.ServerChain}, func(e server.AuditEntry) error {
		var r server.AuditRecord
		if err := json.Unmarshal(e.Body, &r); err != nil {
			return err
		}
		if !strings.HasPrefix(string(r.Action), "session.") {
			return nil
		}
		kind, _, _ := strings.Cut(r.By.Credential, ":")
		line := fmt.Sprintf("%s %s by %s/%s/%s", r.Action, r.Detail["subject"], r.By.Subject, r.By.Surface, kind)
		if r.Detail["why"] != "" {
			line += ": " + r.Detail["why"]
		}
		if r.Detail["session"] == "" || r.Action == server.AuditSessionStart && r.Detail["grants"] == "" {
			line += " (no session or grants named)"
		}
		acts = append(acts, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return acts
}
