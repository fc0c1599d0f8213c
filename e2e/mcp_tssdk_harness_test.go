//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/testkit/proctest"
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
