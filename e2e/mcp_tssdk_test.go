//go:build unix

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/realclient"
)

// TestTSSDKUnderReview drives the real server's /mcp with the TypeScript
// MCP SDK in a repository that reviews changes: a writer's write_memory
// succeeds as a proposal ("proposed as #1, awaiting review") while
// read_memory serves the reviewed text; list_proposals shows it; the
// writer's review_proposal is refused, the admin's approves it, and the
// approved text is what the server serves.
func TestTSSDKUnderReview(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	prefix, err := realclient.NPMInstall(ctx, tsSDK)
	prefix = realclient.ForTest(t, prefix, err)
	srv := startAuthServer(t)
	if _, err := srv.api.Put(ctx, repo, api.PutRequest{Entries: map[string]string{"db.md": "Use MySQL.\n"}}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.api.SetPolicy(ctx, repo, "changes"); err != nil {
		t.Fatal(err)
	}
	bob := srv.token(t, "bob", repo+":write")
	res := callTS(t, prefix, srv.url(), bob,
		map[string]any{"name": "write_memory", "arguments": map[string]any{"repo": repo, "key": "db.md", "content": "Use Postgres.\n"}},
		map[string]any{"name": "read_memory", "arguments": map[string]any{"repo": repo, "key": "db.md"}},
		map[string]any{"name": "list_proposals", "arguments": map[string]any{"repo": repo}},
		map[string]any{"name": "review_proposal", "arguments": map[string]any{"id": 1, "decision": "approve"}})
	if res[0].IsError || !strings.Contains(res[0].Text, "proposed as #1, awaiting review") {
		t.Errorf("write_memory under review: %+v", res[0])
	}
	if !strings.Contains(res[1].Text, "Use MySQL.") {
		t.Errorf("read_memory after the proposal: %+v; want the reviewed text", res[1])
	}
	if res[2].IsError || !strings.Contains(res[2].Text, `"id":1`) || !strings.Contains(res[2].Text, `"author":"bob"`) {
		t.Errorf("list_proposals: %+v", res[2])
	}
	if !res[3].IsError {
		t.Errorf("a writer's review_proposal: %+v; want refused", res[3])
	}
	res = callTS(t, prefix, srv.url(), srv.admin,
		map[string]any{"name": "review_proposal", "arguments": map[string]any{"id": 1, "decision": "approve", "comment": "yes"}})
	if res[0].IsError || !strings.Contains(res[0].Text, `"state":"approved"`) {
		t.Fatalf("the admin's approval: %+v", res[0])
	}
	tm, err := srv.api.Get(ctx, repo, client.GetOptions{})
	if err != nil || tm.Content.Entries["db.md"] != "Use Postgres.\n" {
		t.Errorf("served after approval: %v %q", err, tm.Content.Entries["db.md"])
	}
}
