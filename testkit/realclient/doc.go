// Package realclient runs the real command-line clients of AI coding
// assistants in tests: it installs a pinned release from npm into a cache
// outside the repository (NPMInstall), serves a local stand-in for the
// model's API that records every request (MessagesAPI for Anthropic's
// Messages API, ResponsesAPI for OpenAI's Responses API, GeminiAPI for the
// Gemini API, each on a generic request Recorder), and runs a client in a
// checkout with a home and configuration of its own, against that stand-in
// and without any login or prompt (ClaudeCode, Codex, GeminiCLI).
//
// The point is to test what a real client does with files teammem writes —
// which files it loads, what it sends to the model — rather than our model
// of it. When npm or the registry cannot be reached the tests that need a
// client are skipped with the reason, or fail when $CI is set, so that CI
// never passes by skipping (ForTest).
package realclient
