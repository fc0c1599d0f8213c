package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/pgtest"
)

// TestPolicySetAndProposeOnly: beside a running server on Postgres,
// policy set makes a writer's edit a proposal at once (recorded in the
// repository's audit chain), policy show prints it, a bad policy is a usage error, and a
// token created with --propose-only proposes even a new key under the
// same policy, while the writer's new key lands.
func TestPolicySetAndProposeOnly(t *testing.T) {
	url := pgtest.URL(t)
	dir := t.TempDir()
	quiet := env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	ctx := context.Background()
	if err := run(ctx, []string{"migrate", "up", "--database-url", url}, quiet); err != nil {
		t.Fatal(err)
	}
	base, _ := startServer(t, dir, "--database-url", url)
	token := func(args ...string) string {
		var out bytes.Buffer
		args = append([]string{"token", "create", "--data-dir", dir, "--database-url", url}, args...)
		if err := run(ctx, args, env{stdout: &out, stderr: io.Discard, getenv: quiet.getenv}); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out.String())
	}
	bob, bot := token("--subject", "bob", "--grant", "acme/*:write"), token("--subject", "ci", "--grant", "acme/*:admin", "--propose-only")
	put := func(tok, body string) string {
		t.Helper()
		code, b := request(t, http.MethodPut, base+api.PathTeamMemory+"?repo=acme/api", tok, body)
		if code != 200 {
			t.Fatalf("PUT = %d %s", code, b)
		}
		return b
	}
	put(bob, `{"entries":{"a.md":"one"}}`)
	if err := run(ctx, []string{"policy", "set", "--repo", "acme/api", "--review", "sometimes", "--database-url", url}, quiet); err == nil || exitCode(io.Discard, err) != 2 {
		t.Errorf("a bad policy: %v; want a usage error", err)
	}
	var out, errs bytes.Buffer
	e := env{stdout: &out, stderr: &errs, getenv: quiet.getenv}
	if err := run(ctx, []string{"policy", "set", "--repo", "Acme/API", "--review", "changes", "--database-url", url}, e); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "acme/api: review changes") {
		t.Errorf("policy set printed %q (%q)", out.String(), errs.String())
	}
	out.Reset()
	if err := run(ctx, []string{"audit", "export", "--repo", "acme/api", "--database-url", url}, e); err != nil ||
		!regexp.MustCompile(`"action":"review.policy","by":\{"subject":"operator:[^"]+","credential":"none","surface":"cli","client":"teammem-server/[^"]*"\},"detail":\{"review":"changes"\}`).MatchString(out.String()) {
		t.Errorf("acme/api's audit chain after policy set: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := run(ctx, []string{"policy", "show", "--repo", "acme/api", "--database-url", url}, e); err != nil || !strings.Contains(out.String(), "review changes") {
		t.Errorf("policy show: %v %q", err, out.String())
	}
	if b := put(bob, `{"entries":{"a.md":"two","b.md":"new"}}`); !strings.Contains(b, `"proposal":{"id":1`) || !strings.Contains(b, `"changed":["b.md"]`) {
		t.Errorf("a writer's push after policy set: %s", b)
	}
	if b := put(bot, `{"entries":{"c.md":"from ci"}}`); !strings.Contains(b, `"proposal":{"id":2`) || !strings.Contains(b, `"changed":[]`) {
		t.Errorf("a propose-only token's new key: %s; want it proposed", b)
	}
	if code, b := request(t, http.MethodPost, base+api.PathProposals+"/1/approve", bot, `{}`); code != http.StatusForbidden {
		t.Errorf("a propose-only admin approves: %d %s", code, b)
	}
}
