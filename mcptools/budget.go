package mcptools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"
)

// Budget bounds what one tool call may cost the server that runs it. The
// zero Budget bounds nothing (teammem-agent's stdio server, whose one
// client is its own user, has none).
type Budget struct {
	// Admit, when not nil, is asked before each call runs, with the call's
	// context (which holds its deadline): an error refuses the call (a tool
	// error with its message), else release is called once the call ended.
	Admit func(ctx context.Context, tool string) (release func(), err error)
	// Timeout, when positive, bounds each call's time: past it the call's
	// context ends and the call is a tool error naming the bound.
	Timeout time.Duration
	// MaxReplyBytes, when positive, bounds each call's reply: a result
	// whose reply would be bigger is a tool error naming the bound.
	MaxReplyBytes int
}

// replyHints say how to ask for less of a tool whose reply is too big.
var replyHints = map[string]string{
	"list_memories":   "search_memories finds memories by keywords instead",
	"read_memory":     "the agent's sync (teammem-agent pull) brings it whole",
	"search_memories": "ask for fewer hits with limit, or search one repository",
	"memory_history":  "ask for fewer versions with limit",
	"list_proposals":  "ask for fewer with limit, or list one repository's",
}

// begin admits a call and gives it its deadline: the call runs with ctx,
// and end must be called once it ended.
func (b Budget) begin(parent context.Context, tool string) (ctx context.Context, end func(), err error) {
	ctx, cancel := parent, context.CancelFunc(func() {})
	if b.Timeout > 0 {
		ctx, cancel = context.WithTimeout(parent, b.Timeout)
	}
	if b.Admit == nil {
		return ctx, cancel, nil
	}
	release, err := b.Admit(ctx, tool)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return ctx, func() { release(); cancel() }, nil
}

// overTime is the error of a call that ran in ctx (the call's, derived
// from parent): the call's own error, or, when it ended for its deadline,
// a refusal naming the bound.
func (b Budget) overTime(ctx, parent context.Context, tool string, err error) error {
	if err == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) || parent.Err() != nil {
		return err
	}
	msg := fmt.Sprintf("%s took longer than the server allows a call (%v, its --request-timeout) and was stopped; ask for less, or try again when the server is less busy", tool, b.Timeout)
	if writes[tool] {
		msg += "; the write may have been applied all the same: read_memory tells"
	}
	return Mark(errors.New(msg), ErrLimit)
}

// writes are the tools that write: one stopped at its deadline may have
// been applied.
var writes = map[string]bool{"write_memory": true, "delete_memory": true}

// checkReply refuses a result whose reply would be over MaxReplyBytes. The
// reply carries the result twice: as structured content (text, the JSON)
// and as its text copy, a JSON string in which every quote and backslash
// is escaped.
func (b Budget) checkReply(tool string, text []byte) error {
	if b.MaxReplyBytes <= 0 {
		return nil
	}
	n := replyBytes(text)
	if n <= b.MaxReplyBytes {
		return nil
	}
	hint := replyHints[tool]
	if hint == "" {
		hint = "ask for less"
	}
	return Mark(fmt.Errorf("the reply of %s would be %d bytes, over the server's bound of %d bytes a reply; %s", tool, n, b.MaxReplyBytes, hint), ErrLimit)
}

// replyEnvelope is what a reply holds beyond the result and its copy (the
// JSON-RPC envelope, the content's type), rounded up.
const replyEnvelope = 256

// replyBytes is the size of the reply carrying the result text.
func replyBytes(text []byte) int {
	return 2*len(text) + bytes.Count(text, []byte{'"'}) + bytes.Count(text, []byte{'\\'}) + replyEnvelope
}
