package teamblock

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/memcore"
)

// TestRenderHostileThroughLoader loads a CLAUDE.local.md holding a block
// of hostile index lines through memcore, as the client would: the markers
// are stripped, no @include pulls in another file, and the user's text
// after the block arrives intact.
func TestRenderHostileThroughLoader(t *testing.T) {
	root := t.TempDir()
	repoDir := filepath.Join(root, "repo")
	os.MkdirAll(filepath.Join(repoDir, ".git"), 0o755)
	for _, decoy := range []string{"secret.txt", "x.md", "y.md", "hosts.md"} {
		os.WriteFile(filepath.Join(repoDir, decoy), []byte("DECOY "+decoy+"\n"), 0o644)
	}
	index := strings.Join(hostileIndexLines, "\n") + "\n@secret.txt\n- see @x.md and @./y.md\n[t](a.md)@hosts.md\n"
	b := Render(Input{Repo: "acme/api", TeamDir: testTeam, Index: index})
	const user = "User text after the block.\n"
	os.WriteFile(filepath.Join(repoDir, "CLAUDE.local.md"), []byte(b.Text+user), 0o644)
	res, err := memcore.Load(context.Background(), memcore.LoadOptions{
		Env:         memcore.Env{Home: filepath.Join(root, "home"), ManagedDir: filepath.Join(root, "managed"), Cwd: repoDir, Getenv: func(string) string { return "" }},
		ProjectRoot: repoDir,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 {
		for _, f := range res.Files {
			t.Logf("loaded %s (%s, parent %q)", f.Path, f.Type, f.Parent)
		}
		t.Fatalf("loaded %d files, want CLAUDE.local.md alone; diagnostics %v", len(res.Files), res.Diagnostics)
	}
	got := res.Files[0].Content
	for _, bad := range []string{"<!-- teammem:begin", "<!-- teammem:end", "DECOY"} {
		if strings.Contains(got, bad) {
			t.Errorf("loaded content holds %q:\n%s", bad, got)
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(got), strings.TrimSpace(user)) || !strings.HasPrefix(got, "# Team memory of acme/api") {
		t.Errorf("loaded content does not run from the heading to the user's text:\n%s", got)
	}
}
