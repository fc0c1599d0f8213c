package mcptools

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/secrets"
	"github.com/teammem/teammem/memcore/secrets/secretstest"
)

// oneRepo is a Backend holding one repository with one memory, for the
// tests of the tools' plumbing over the SDK.
type oneRepo struct{}

const note = "---\ndescription: how we deploy\n---\nRun `make release`, then \"watch\" the canary.\n"

var at = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func (oneRepo) State(context.Context, string) (State, error) {
	return State{Repo: "acme/api", Version: 3, Checksum: "sha256:x", Entries: map[string]string{"deploy.md": protocol.EntryChecksum([]byte(note))}}, nil
}

func (oneRepo) List(context.Context, string) ([]Entry, error) {
	return []Entry{{Key: "deploy.md", Checksum: protocol.EntryChecksum([]byte(note)), Size: int64(len(note)), Content: note, Author: "ann", At: at}}, nil
}

func (oneRepo) History(context.Context, string, string, int) ([]Revision, error) {
	return []Revision{{Version: 3, Op: "put", Checksum: protocol.EntryChecksum([]byte(note)), Size: int64(len(note)), Author: "ann", At: at}}, nil
}

func (oneRepo) Revision(_ context.Context, _, key string, _ int64) (Revision, error) {
	if key != "deploy.md" {
		return Revision{}, Mark(context.Canceled, ErrNotFound)
	}
	return Revision{Version: 3, Op: "put", Checksum: protocol.EntryChecksum([]byte(note)), Size: int64(len(note)), Author: "ann", At: at, Content: note}, nil
}

func (oneRepo) Activity(context.Context, string, int) ([]Change, error) {
	return []Change{{Version: 3, At: at, Author: "ann", Changed: []string{"deploy.md"}}}, nil
}

func (oneRepo) Write(_ context.Context, _ string, w Write) (WriteResult, error) {
	r := WriteResult{Version: 4, Checksum: "sha256:y"}
	for k := range w.Entries {
		r.Changed = append(r.Changed, k)
	}
	return r, nil
}

func (oneRepo) Proposals(context.Context, string, string, int) ([]Proposal, error) {
	return []Proposal{{ID: 1, Repo: "acme/api", State: "open", Author: "bob", CreatedAt: "2026-03-01T12:00:00Z", Keys: []string{"deploy.md"}}}, nil
}

func (oneRepo) Review(_ context.Context, id int64, decision, comment string) (Proposal, error) {
	return Proposal{ID: id, Repo: "acme/api", State: decision + "d", Author: "bob", CreatedAt: "2026-03-01T12:00:00Z",
		Keys: []string{"deploy.md"}, DecidedBy: "ada", Comment: comment}, nil
}

func (oneRepo) Search(context.Context, string, string, int) (Found, error) {
	return Found{Hits: []Hit{{Repo: "acme/api", Key: "deploy.md", Snippet: "Run make release"}}}, nil
}

func (oneRepo) Health(context.Context, string) (Health, error) {
	return Health{Repo: "acme/api", Version: 3, Findings: []HealthFinding{{Kind: "orphan-topic", Keys: []string{"deploy.md"},
		Detail: "no index line links deploy.md", Suggestion: "add a line linking deploy.md to MEMORY.md"}}}, nil
}

func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, Options{DefaultRepo: "acme/api"})
}

// connectWith is connect with the server's options o.
func connectWith(t *testing.T, o Options) *mcp.ClientSession {
	t.Helper()
	return connectBackend(t, oneRepo{}, o)
}

// TestOutputsMatchTheirSchemas calls every tool and checks its structured
// output against the output schema it declares (the SDK's generic AddTool
// checked that on every call; see add), and that the text content is the
// same JSON.
func TestOutputsMatchTheirSchemas(t *testing.T) {
	cs := connect(t)
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]map[string]any{
		"list_memories":   {},
		"search_memories": {"query": "release"},
		"read_memory":     {"key": "deploy.md"},
		"memory_history":  {"key": "deploy.md"},
		"write_memory":    {"key": "notes/x.md", "content": "# x\n\nA note.\n", "index_line": "- [x](notes/x.md) — x"},
		"delete_memory":   {"key": "deploy.md"},
		"list_proposals":  {},
		"review_proposal": {"id": 1, "decision": "approve"},
		"memory_health":   {},
	}
	if len(list.Tools) != len(args) {
		t.Fatalf("%d tools, want %d", len(list.Tools), len(args))
	}
	for _, tool := range list.Tools {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool.Name, Arguments: args[tool.Name]})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool.Name, err, res)
		}
		var schema jsonschema.Schema
		b, _ := json.Marshal(tool.OutputSchema)
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatalf("%s: output schema %s: %v", tool.Name, b, err)
		}
		resolved, err := schema.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(res.StructuredContent)
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); err != nil {
			t.Errorf("%s: output %s does not match its schema: %v", tool.Name, out, err)
		}
		var fromText any
		if len(res.Content) != 1 || json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &fromText) != nil ||
			!reflect.DeepEqual(fromText, v) {
			t.Errorf("%s: content %+v, want the structured output %s as text", tool.Name, res.Content, out)
		}
	}
}

// TestArgumentsAreChecked: arguments the input schema refuses are a tool
// error naming what is wrong, and the tool is not run.
func TestArgumentsAreChecked(t *testing.T) {
	cs := connect(t)
	for _, c := range []struct {
		args any
		want string
	}{
		{map[string]any{}, `missing properties: ["key"]`},
		{map[string]any{"key": 7}, "type"},
		{map[string]any{"key": "deploy.md", "Key": "x"}, "Key"},
		{map[string]any{"key": "deploy.md", "version": "new"}, "type"},
		{map[string]any{"key": "deploy.md", "version": 1.5}, "integer"},
		{[]any{"deploy.md"}, "arguments"},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_memory", Arguments: c.args})
		if err != nil {
			t.Fatalf("%v: %v (want a tool error)", c.args, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, "validating \"arguments\"") || !strings.Contains(text, c.want) {
			t.Errorf("%v: isError %v, %q; want a tool error about %q", c.args, res.IsError, text, c.want)
		}
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_memory", Arguments: map[string]any{"key": "deploy.md", "version": 3}})
	if err != nil || res.IsError {
		t.Fatalf("valid arguments: %v %+v", err, res)
	}
}

// TestWriteRefusesCredentialKey: a key carrying a credential is refused
// before anything is written, with or without an index line, naming the
// rule and the key redacted, never the credential, in the answer as in
// what the server logs of the call.
func TestWriteRefusesCredentialKey(t *testing.T) {
	var calls []Call
	cs := connectWith(t, Options{DefaultRepo: "acme/api", Observe: func(_ context.Context, c Call) { calls = append(calls, c) }})
	tok := secretstest.GitHubToken()
	for _, args := range []map[string]any{
		{"key": tok + ".md", "content": "hi\n"},
		{"key": "notes/" + tok + ".md", "content": "hi\n", "index_line": "- [Notes](notes/" + tok + ".md) — why"},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "write_memory", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, "github-pat") || !strings.Contains(text, secrets.Redacted) || strings.Contains(text, tok) {
			t.Errorf("write_memory %v: isError %v, %q; want a refusal naming the rule and the key redacted", args["key"], res.IsError, text)
		}
	}
	if len(calls) != 2 {
		t.Fatalf("%d calls observed; want 2", len(calls))
	}
	for _, c := range calls {
		if c.Outcome != OutcomeRefused || !strings.Contains(c.Key, secrets.Redacted) || strings.Contains(c.Key, tok) || strings.Contains(c.Err.Error(), tok) {
			t.Errorf("observed %+v; want a refusal with the key redacted", c)
		}
	}
}
