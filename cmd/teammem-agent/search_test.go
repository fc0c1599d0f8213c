package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
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

// closedURL returns the URL of a port nothing listens on any more.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

// TestSearchFallsBackToTheFolder: with the server unreachable, search
// answers from the local team folder and says so (on stderr with --json);
// a server that answers, even to refuse the token, is never replaced by
// the folder.
func TestSearchFallsBackToTheFolder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "deploys.md"), []byte("---\nname: Deploys\ndescription: How we ship\n---\nRun make release.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TEAMMEM_SERVER": closedURL(t), "TEAMMEM_REPO": "acme/api", "TEAMMEM_DIR": dir,
		"TEAMMEM_STATE_DIR": t.TempDir()}
	res := cli(t, ctx, env, "search", "deploy")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "server unreachable: searched the local team folder "+dir) ||
		!strings.Contains(res.stdout, `acme/api  "deploys.md"  (local file)`+"\n    Run make release.") {
		t.Errorf("search with the server down: %d %q %q", res.code, res.stdout, res.stderr)
	}
	res = cli(t, ctx, env, "search", "--json", "deploy")
	var out api.SearchResults
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || len(out.Results) != 1 || out.Results[0].Key != "deploys.md" ||
		!strings.Contains(res.stderr, "server unreachable") {
		t.Errorf("search --json with the server down: %d %q %q (%v)", res.code, res.stdout, res.stderr, err)
	}
	if res := cli(t, ctx, env, "search", "zyzzyva"); res.code != 0 || !strings.Contains(res.stdout, "no local file matches") {
		t.Errorf("no local match: %d %q %q", res.code, res.stdout, res.stderr)
	}

	ts := newTestServer(t, true)
	env["TEAMMEM_SERVER"], env["TEAMMEM_TOKEN"] = ts.url, "not-a-token"
	if res := cli(t, ctx, env, "search", "deploy"); res.code == 0 || strings.Contains(res.stdout, "deploys.md") {
		t.Errorf("search with a refused token: %d %q %q", res.code, res.stdout, res.stderr)
	}
}
