package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
)

// TestSearchCommand: search finds this repository's entries, --all every
// readable repository's, --json prints the API's results, and the flags
// are checked.
func TestSearchCommand(t *testing.T) {
	ts := newTestServer(t, false)
	ts.put(t, "acme/api", api.PutRequest{Entries: map[string]string{"db.md": "Set pool_max_conns to 16."}})
	ts.put(t, "acme/web", api.PutRequest{Entries: map[string]string{"pool.md": "The web pool."}})
	ctx := context.Background()
	env := map[string]string{"TEAMMEM_SERVER": ts.url, "TEAMMEM_REPO": "acme/api", "TEAMMEM_DIR": t.TempDir(),
		"TEAMMEM_STATE_DIR": t.TempDir()}

	res := cli(t, ctx, env, "search", "pool")
	if res.code != 0 || !strings.Contains(res.stdout, `acme/api  "db.md"  (version 1)`) || strings.Contains(res.stdout, "acme/web") {
		t.Errorf("search pool: %d %q %q", res.code, res.stdout, res.stderr)
	}
	res = cli(t, ctx, env, "search", "--all", "--json", "pool")
	var out api.SearchResults
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || len(out.Results) != 2 {
		t.Errorf("search --all --json: %d %q %q (%v)", res.code, res.stdout, res.stderr, err)
	}
	delete(env, "TEAMMEM_REPO") // --all needs no repository
	if res := cli(t, ctx, env, "search", "--all", "pool"); res.code != 0 || !strings.Contains(res.stdout, "acme/web") {
		t.Errorf("search --all outside a checkout: %d %q %q", res.code, res.stdout, res.stderr)
	}
	if res := cli(t, ctx, env, "search", "--repo", "acme/web", "nothing-like-it"); res.code != 0 || !strings.Contains(res.stdout, "no entry matches") {
		t.Errorf("search without results: %d %q %q", res.code, res.stdout, res.stderr)
	}
	for _, args := range [][]string{
		{"search", "--all", "--repo", "acme/api", "pool"},
		{"search", "--all"},
		{"search", "--all", "--limit", "0", "pool"},
	} {
		if res := cli(t, ctx, env, args...); res.code != 2 {
			t.Errorf("%q: exit %d, want 2 (usage): %q", args, res.code, res.stderr)
		}
	}
	if res := cli(t, ctx, env, "search", "--all", `"***"`); res.code == 0 || !strings.Contains(res.stderr, "no word") {
		t.Errorf("a query without words: %d %q", res.code, res.stderr)
	}
}
