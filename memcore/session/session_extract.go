package session

// SessionConfig holds the thresholds of the session notes extraction gate.
type SessionConfig struct {
	// MinTokensToInit is the conversation size at which notes start.
	MinTokensToInit int
	// MinTokensBetweenUpdates is the growth needed since the last extraction.
	MinTokensBetweenUpdates int
	// ToolCallsBetweenUpdates is the tool calls needed since the last
	// extraction, unless the last turn had none.
	ToolCallsBetweenUpdates int
}

// DefaultSessionConfig are the reference thresholds: 10,000 tokens to start,
// 5,000 tokens of growth and 3 tool calls between updates.
var DefaultSessionConfig = SessionConfig{
	MinTokensToInit:         10000,
	MinTokensBetweenUpdates: 5000,
	ToolCallsBetweenUpdates: 3,
}

// SessionState is one session's extraction state. It is not safe for
// concurrent use; one session's hook owns it.
type SessionState struct {
	// Config are the thresholds; the zero value means DefaultSessionConfig.
	Config SessionConfig
	// Initialized becomes true once the conversation first reached
	// MinTokensToInit.
	Initialized bool
	// TokensAtLastExtraction is the conversation size at the last extraction.
	TokensAtLastExtraction int
}

// config returns the effective thresholds.
func (s *SessionState) config() SessionConfig {
	if s.Config == (SessionConfig{}) {
		return DefaultSessionConfig
	}
	return s.Config
}

// RecordExtraction notes that notes were extracted at a conversation size of
// tokens.
func (s *SessionState) RecordExtraction(tokens int) {
	s.TokensAtLastExtraction = tokens
}

// ShouldExtract decides whether to update the session notes now, given the
// conversation's current token count, the tool calls since the last
// extraction and whether the last assistant turn called tools. Nothing
// happens before the conversation first reaches MinTokensToInit (that moment
// marks the state initialized); after that the growth since the last
// extraction must reach MinTokensBetweenUpdates, and either
// ToolCallsBetweenUpdates were made or the last turn had no tool calls (a
// natural pause).
func ShouldExtract(state *SessionState, tokens, toolCallsSinceLast int, lastTurnHadToolCalls bool) bool {
	cfg := state.config()
	if !state.Initialized {
		if tokens < cfg.MinTokensToInit {
			return false
		}
		state.Initialized = true
	}
	if tokens-state.TokensAtLastExtraction < cfg.MinTokensBetweenUpdates {
		return false
	}
	return toolCallsSinceLast >= cfg.ToolCallsBetweenUpdates || !lastTurnHadToolCalls
}
