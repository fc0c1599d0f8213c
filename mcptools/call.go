package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// target is implemented by every tool's input: what a log line may name.
type target interface{ target() (repo, key string) }

// add registers one tool whose handler is timed, classified and observed.
// The handler's error becomes a tool error (isError) with its message.
func add[In target, Out any](t *tools, s *mcp.Server, tool *mcp.Tool, fn func(context.Context, In) (Out, error)) {
	if tool.InputSchema == nil {
		tool.InputSchema = inputSchema[In]()
	}
	mcp.AddTool(s, tool, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		start := time.Now()
		out, err := fn(ctx, in)
		if t.o.Observe != nil {
			repo, key := in.target()
			if repo == "" {
				repo = t.o.DefaultRepo
			}
			t.o.Observe(ctx, Call{Tool: tool.Name, Outcome: outcome(err), Repo: short(repo), Key: short(key), Duration: time.Since(start), Err: err})
		}
		return nil, out, err
	})
}

// inputSchema is the JSON Schema the SDK would infer for In, as JSON text.
// The SDK reads a tool's input schema again on every call over HTTP (for
// x-mcp-header annotations) by marshalling and parsing it: from text that
// is a copy and a parse, from the inferred *jsonschema.Schema a walk by
// reflection too: in a profile of read_memory at 16 clients, that reading
// took 9 % of the server's CPU, 3.7 % from text.
func inputSchema[In any]() json.RawMessage {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcptools: input schema of %T: %v", *new(In), err))
	}
	text, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("mcptools: input schema of %T: %v", *new(In), err))
	}
	return text
}

// outcome classifies a call's error.
func outcome(err error) string {
	switch {
	case err == nil:
		return OutcomeOK
	case errors.Is(err, ErrInvalid), errors.Is(err, ErrNotFound), errors.Is(err, ErrForbidden), errors.Is(err, ErrConflict):
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
