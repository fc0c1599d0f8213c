package mcptools

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// offlineRepo answers a search of its repository from "the local folder",
// with a note, and any other search (an org memory's) as the unreachable
// server would.
type offlineRepo struct{ *memRepo }

func (o offlineRepo) Search(_ context.Context, _, repo string, _ int) (Found, error) {
	if repo != "acme/api" {
		return Found{}, errors.New("server unreachable: dial tcp 127.0.0.1:1: connection refused")
	}
	return Found{Hits: []Hit{{Repo: repo, Key: "deploys.md", Snippet: "Run make release."}},
		Note: "server unreachable: searched the local team folder"}, nil
}

// TestSearchOfflineSkipsOrgMemories: a search that fell back to the local
// folder answers with it and its note; it does not go on to the org
// memories (whose search could only fail the same way) and fail the whole.
func TestSearchOfflineSkipsOrgMemories(t *testing.T) {
	cs := connectTo(t, offlineRepo{newMemRepo(1<<20, nil)})
	refused, text := callTool(t, cs, "search_memories", map[string]any{"query": "deploy", "repo": "acme/api"})
	if refused || !strings.Contains(text, "deploys.md") || !strings.Contains(text, "searched the local team folder") {
		t.Errorf("search_memories offline: refused %v, %s", refused, text)
	}
}
