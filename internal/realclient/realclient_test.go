package realclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeCodeReadsCheckoutMemory runs each pinned release once in a
// checkout whose CLAUDE.md holds a marker: the run ends well, prints the
// stand-in's reply, and the request it sent holds the marker (so the
// harness sees what the client sends the model).
func TestClaudeCodeReadsCheckoutMemory(t *testing.T) {
	for _, v := range []string{ClaudeCodeNode, ClaudeCodeNative} {
		t.Run(v, func(t *testing.T) {
			c := ClaudeCodeForTest(t, v)
			api := MessagesAPI(t, "pong from the stand-in")
			dir := t.TempDir()
			os.Mkdir(filepath.Join(dir, ".git"), 0o755)
			os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("The marker is quince-4417.\n"), 0o644)
			res := c.Print(t, Session{Dir: dir, BaseURL: api.URL()}, "hi")
			if res.Err != nil || !strings.Contains(res.Stdout, "pong from the stand-in") {
				t.Fatalf("claude -p: %v\nstdout: %s\nstderr: %s", res.Err, res.Stdout, res.Stderr)
			}
			if !api.Sent("quince-4417") {
				t.Errorf("no request held the CLAUDE.md marker; requests: %d", len(api.Requests()))
			}
		})
	}
}
