package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/memcore/secrets"
)

// target is implemented by every tool's input: what a log line may name.
type target interface{ target() (repo, key string) }

// add registers one tool whose calls are admitted and bounded by
// Options.Budget (every call, valid or not, is admitted first), timed,
// classified and observed. The handler's error becomes a tool error
// (isError) with its message.
//
// The tool is added with the SDK's low-level Server.AddTool, which leaves
// the arguments and the result to us, and add does what the SDK's generic
// AddTool would, at less cost: the arguments are checked against the
// input schema inferred from In (the same schema and the same error text),
// and the result is marshalled once, as structured content and its text
// copy. The SDK's AddTool also checked every result against the output
// schema by parsing it again into a map: for read_memory at 16 clients that
// was 18 % of the server's CPU. The output types are ours and their schema
// is inferred from them, so the check is a test instead
// (TestOutputsMatchTheirSchemas).
func add[In target, Out any](t *tools, s *mcp.Server, tool *mcp.Tool, fn func(context.Context, In) (Out, error)) {
	inSchema, inResolved := schemaFor[In]()
	outSchema, _ := schemaFor[Out]()
	defaults := hasDefaults(inResolved.Schema())
	if tool.InputSchema == nil {
		tool.InputSchema = inSchema
	}
	tool.OutputSchema = outSchema
	s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		in, argErr := arguments[In](req.Params.Arguments, inResolved, defaults)
		callCtx, end, err := t.o.Budget.begin(ctx, tool.Name)
		if err != nil {
			t.observe(ctx, tool.Name, in, start, err)
			return errorResult(err), nil
		}
		defer end()
		if argErr != nil {
			return errorResult(argErr), nil
		}
		out, err := fn(callCtx, in)
		err = t.o.Budget.overTime(callCtx, ctx, tool.Name, err)
		var text []byte
		if err == nil {
			if text, err = json.Marshal(out); err != nil {
				return nil, fmt.Errorf("marshal the output of %s: %w", tool.Name, err)
			}
			err = t.o.Budget.checkReply(tool.Name, text)
		}
		t.observe(ctx, tool.Name, in, start, err)
		if err != nil {
			return errorResult(err), nil
		}
		// The structured content, and the same JSON as text for the
		// clients that read text only (as the specification asks).
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(text),
			Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
	})
}

// observe tells Options.Observe of a call that began at start and ended
// with err.
func (t *tools) observe(ctx context.Context, tool string, in target, start time.Time, err error) {
	if t.o.Observe == nil {
		return
	}
	repo, key := in.target()
	if repo == "" {
		repo = t.o.DefaultRepo
	}
	t.o.Observe(ctx, Call{Tool: tool, Outcome: outcome(err), Repo: short(secrets.Redact(repo)), Key: short(secrets.Redact(key)), Duration: time.Since(start), Err: err})
}

// arguments checks a call's arguments (nil: none) against the input
// schema, whose properties have default values when defaults is true, and
// decodes them. The error reads as the SDK's AddTool words it.
func arguments[In any](raw json.RawMessage, schema *jsonschema.Resolved, defaults bool) (In, error) {
	var in In
	m := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &m); err != nil {
			return in, fmt.Errorf("validating \"arguments\": %v", err)
		}
	}
	if defaults {
		if err := schema.ApplyDefaults(&m); err != nil {
			return in, fmt.Errorf("validating \"arguments\": %v", err)
		}
	}
	if err := schema.Validate(m); err != nil {
		return in, fmt.Errorf("validating \"arguments\": %v", err)
	}
	if !defaults && len(raw) > 0 {
		// Valid, so its properties are In's very names (no other is
		// allowed): decoded as they came, as the SDK decodes them.
		return in, json.Unmarshal(raw, &in)
	}
	withDefaults, err := json.Marshal(m)
	if err == nil {
		err = json.Unmarshal(withDefaults, &in)
	}
	return in, err
}

// hasDefaults reports whether an object schema gives a property a
// default value.
func hasDefaults(s *jsonschema.Schema) bool {
	for _, p := range s.Properties {
		if p.Default != nil {
			return true
		}
	}
	return false
}

// errorResult is the tool error telling err.
func errorResult(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
}

// schemaFor returns the JSON Schema the SDK would infer for T, as JSON
// text, and resolved for validation. The SDK gets the text: it reads a
// tool's input schema again on every call over HTTP (for x-mcp-header
// annotations) by marshalling and parsing it. From text that is a copy and
// a parse; from an inferred *jsonschema.Schema a walk by reflection too.
// In a profile of read_memory at 16 clients that reading took 9 % of the
// server's CPU, 3.7 % from text.
func schemaFor[T any]() (json.RawMessage, *jsonschema.Resolved) {
	schema, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcptools: schema of %T: %v", *new(T), err))
	}
	resolved, err := schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("mcptools: schema of %T: %v", *new(T), err))
	}
	text, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("mcptools: schema of %T: %v", *new(T), err))
	}
	return text, resolved
}

// outcome classifies a call's error.
func outcome(err error) string {
	switch {
	case err == nil:
		return OutcomeOK
	case errors.Is(err, ErrInvalid), errors.Is(err, ErrNotFound), errors.Is(err, ErrForbidden), errors.Is(err, ErrConflict), errors.Is(err, ErrLimit):
		return OutcomeRefused
	}
	return OutcomeFailed
}

// refusef is a refusal of the call for what it asked.
func refusef(format string, a ...any) error { return Mark(fmt.Errorf(format, a...), ErrInvalid) }

// readOnly and sideEffects are the tools' annotations.
var (
	falseHint = new(bool)
	readOnly  = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: falseHint}
)

func sideEffects(title string, destructive, idempotent bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: &destructive, IdempotentHint: idempotent, OpenWorldHint: falseHint}
}

// timeText formats a time for a tool's output ("" for the zero time).
func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
