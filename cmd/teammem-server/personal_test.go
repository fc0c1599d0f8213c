package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/pgtest"
)

// TestPersonalDelete: personal delete refuses while the server holds the
// embedded store, lists without --yes, and with it erases the subject's
// personal memory alone (its entries and history), writing one audit line
// per repository; the next server serves the emptied repository, another
// subject's personal memory and the team memory as they were.
func TestPersonalDelete(t *testing.T) {
	dir := t.TempDir()
	base, _, stop := startServerStop(t, dir)
	alice, bob := issueToken(t, dir, "alice", "acme/*:write"), issueToken(t, dir, "bob", "acme/*:write")
	for _, w := range []struct{ token, repo, body string }{
		{alice, "~/acme/api", `{"entries":{"plan.md":"alice's plan"}}`},
		{alice, "~/acme/web", `{"entries":{"web.md":"alice's web"}}`},
		{bob, "~/acme/api", `{"entries":{"plan.md":"bob's plan"}}`},
		{alice, "acme/api", `{"entries":{"team.md":"team"}}`},
	} {
		if code, b := request(t, http.MethodPut, base+api.PathTeamMemory+"?repo="+w.repo, w.token, w.body); code != 200 {
			t.Fatalf("PUT %s = %d %s", w.repo, code, b)
		}
	}
	var out, errs bytes.Buffer
	e := env{stdout: &out, stderr: &errs, getenv: func(string) string { return "" }}
	ctx := context.Background()
	if err := run(ctx, []string{"personal", "delete", "--subject", "alice", "--yes", "--data-dir", dir}, e); err == nil || !strings.Contains(err.Error(), "stop it") {
		t.Errorf("personal delete beside the server = %v; want it refused", err)
	}
	stop()
	if err := run(ctx, []string{"personal", "delete", "--subject", "alice", "--data-dir", dir}, e); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Count(got, "would erase ") != 2 || !strings.Contains(got, "nothing erased") {
		t.Errorf("listing: %q", got)
	}
	out.Reset()
	if err := run(ctx, []string{"personal", "delete", "--subject", "alice", "--yes", "--data-dir", dir}, e); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Count(got, "erased ") != 2 {
		t.Errorf("erase output: %q", got)
	}
	var lines int
	for _, l := range strings.Split(strings.TrimSpace(errs.String()), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(l), &rec) != nil || rec["msg"] != "audit" {
			continue
		}
		lines++
		if rec["subject"] != "alice" || rec["action"] != "personal delete" || rec["entries"] != 1.0 || rec["operator"] == "" ||
			!strings.HasPrefix(rec["repo"].(string), server.PersonalSpace("alice")+"/") {
			t.Errorf("audit line %s", l)
		}
	}
	if lines != 2 {
		t.Errorf("%d audit lines; want 2: %s", lines, errs.String())
	}

	base, _ = startServer(t, dir)
	for _, c := range []struct{ token, repo, want, not string }{
		{alice, "~/acme/api", `"entries":{}`, "alice's plan"},
		{bob, "~/acme/api", "bob's plan", ""},
		{alice, "acme/api", `"team.md":"team"`, ""},
	} {
		code, body := request(t, http.MethodGet, base+api.PathTeamMemory+"?repo="+c.repo, c.token, "")
		if code != 200 || !strings.Contains(body, c.want) || c.not != "" && strings.Contains(body, c.not) {
			t.Errorf("GET %s after the erase = %d %s; want %s", c.repo, code, body, c.want)
		}
	}
	if code, body := request(t, http.MethodGet, base+api.PathHistory+"?repo=~/acme/api&key=plan.md", alice, ""); strings.Contains(body, "alice's plan") {
		t.Errorf("history after the erase = %d %s", code, body)
	}
}

// TestPersonalDeleteOnPostgres: beside a running server on Postgres the
// erase takes effect at once: the server serves the emptied repository one
// version on, and the owner writes it again.
func TestPersonalDeleteOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	dir := t.TempDir()
	quiet := env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	if err := run(context.Background(), []string{"migrate", "up", "--database-url", url}, quiet); err != nil {
		t.Fatal(err)
	}
	base, _ := startServer(t, dir, "--database-url", url)
	var tok bytes.Buffer
	if err := run(context.Background(), []string{"token", "create", "--data-dir", dir, "--database-url", url, "--subject", "ana", "--grant", "acme/*:read"},
		env{stdout: &tok, stderr: io.Discard, getenv: quiet.getenv}); err != nil {
		t.Fatal(err)
	}
	ana := strings.TrimSpace(tok.String())
	for _, body := range []string{`{"entries":{"plan.md":"ana's plan"}}`, `{"entries":{"more.md":"more"}}`} {
		if code, b := request(t, http.MethodPut, base+api.PathTeamMemory+"?repo=~/acme/pg", ana, body); code != 200 {
			t.Fatalf("PUT = %d %s", code, b)
		}
	}
	var errs bytes.Buffer
	if err := run(context.Background(), []string{"personal", "delete", "--subject", "ana", "--yes", "--database-url", url},
		env{stdout: io.Discard, stderr: &errs, getenv: quiet.getenv}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errs.String(), `"msg":"audit"`) {
		t.Errorf("no audit line: %s", errs.String())
	}
	code, body := request(t, http.MethodGet, base+api.PathTeamMemory+"?repo=~/acme/pg", ana, "")
	if code != 200 || strings.Contains(body, "ana's plan") || !strings.Contains(body, `"version":3`) {
		t.Errorf("GET after the erase = %d %s; want version 3, empty", code, body)
	}
	if code, b := request(t, http.MethodPut, base+api.PathTeamMemory+"?repo=~/acme/pg", ana, `{"entries":{"again.md":"again"}}`); code != 200 || !strings.Contains(b, `"version":4`) {
		t.Errorf("PUT after the erase = %d %s; want version 4", code, b)
	}
}
