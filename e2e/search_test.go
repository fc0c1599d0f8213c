package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSearchStemsAndFallsBack: the real server finds a topic named
// "Deploys" for "deploy", with a score and a snippet of its body (never its
// frontmatter); with the server stopped, the agent's search answers from
// the local team folder and says so.
func TestSearchStemsAndFallsBack(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	dir, state := t.TempDir(), t.TempDir()
	topic := "---\nname: Deploys\ndescription: How we ship to production\n---\n\n# Deploys\nRun make release on Fridays.\n"
	if err := os.WriteFile(filepath.Join(dir, "deploys.md"), []byte(topic), 0o644); err != nil {
		t.Fatal(err)
	}
	syncOK(t, srv, dir, state)

	type result struct {
		Key     string
		Score   float64
		Snippet struct{ Text string }
	}
	res := agentJSON[struct{ Results []result }](t, srv, dir, state, "search", "deploy")
	if len(res.Results) != 1 || res.Results[0].Key != "deploys.md" || res.Results[0].Score < 3 ||
		res.Results[0].Snippet.Text != "# Deploys Run make release on Fridays." {
		t.Fatalf("search deploy on the server: %+v", res.Results)
	}

	if code := srv.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, srv.stderr)
	}
	p := startProc(t, agentBin, "search", "--server", srv.url(), "--repo", repo, "--dir", dir, "--state-dir", state, "deploy")
	if err := p.wait(); err != nil {
		t.Fatalf("search with the server stopped: %v\nstdout:\n%s\nstderr:\n%s", err, p.stdout, p.stderr)
	}
	out := p.stdout.String()
	if !strings.HasPrefix(out, "server unreachable: searched the local team folder "+dir) ||
		!strings.Contains(out, `"deploys.md"  (local file)`) || !strings.Contains(out, "# Deploys") {
		t.Errorf("search with the server stopped:\n%s\nstderr:\n%s", out, p.stderr)
	}
}
