//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/proctest"
	"github.com/teammem/teammem/testkit/realclient"
)

// tsSDK is the release of the TypeScript MCP SDK the test drives.
const tsSDK = "@modelcontextprotocol/sdk@1.32.2"

// tsCalls is a client of the TypeScript MCP SDK: it connects to $MCP_URL
// with $MCP_TOKEN over streamable HTTP, makes the tool calls of $CALLS in
// order and prints their results as one JSON array.
const tsCalls = `const { createRequire } = require("node:module");
const sdk = createRequire(process.env.SDK_PREFIX + "/package.json");
const { Client } = sdk("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = sdk("@modelcontextprotocol/sdk/client/streamableHttp.js");
(async () => {
  const client = new Client({ name: "ts-sdk-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(process.env.MCP_URL),
    { requestInit: { headers: { Authorization: "Bearer " + process.env.MCP_TOKEN } } }));
  const out = [];
  for (const c of JSON.parse(process.env.CALLS)) {
    const r = await client.callTool({ name: c.name, arguments: c.arguments });
    out.push({ isError: !!r.isError, text: r.content.map((p) => p.text).join("") });
  }
  await client.close();
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`

type tsResult struct {
	IsError bool   `json:"isError"`
	Text    string `json:"text"`
}

// callTS runs tsCalls as token and returns the results.
func callTS(t *testing.T, prefix, url, token string, calls ...map[string]any) []tsResult {
	t.Helper()
	script := filepath.Join(t.TempDir(), "calls.cjs")
	if err := os.WriteFile(script, []byte(tsCalls), 0o600); err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(calls)
	cmd := proctest.Command(t, "node", script)
	cmd.Env = append(cleanEnv(), "SDK_PREFIX="+prefix+"/node_modules/@modelcontextprotocol/sdk", "MCP_URL="+url+"/mcp",
		"MCP_TOKEN="+token, "CALLS="+string(js))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v %s", err, stderr.String())
	}
	var res []tsResult
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(calls) {
		t.Fatalf("node printed %s: %v", out, err)
	}
	return res
}

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
