package mcptools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// target is implemented by every tool's input: what a log line may name.
type target interface{ target() (repo, key string) }

// add registers one tool whose handler is timed, classified and observed.
// The handler's error becomes a tool error (isError) with its message.
func add[In target, Out any](t *tools, s *mcp.Server, tool *mcp.Tool, fn func(context.Context, In) (Out, error)) {
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
