package realclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// GeminiCLIVersion is the Gemini CLI release the tests run.
const GeminiCLIVersion = "0.61.0"

// GeminiCLI is one installed release of Google's Gemini CLI: a bundle run
// with node.
type GeminiCLI struct {
	Version string
	Argv    []string
}

// InstallGeminiCLI installs @google/gemini-cli at version (see NPMInstall).
func InstallGeminiCLI(ctx context.Context, version string) (*GeminiCLI, error) {
	prefix, err := NPMInstall(ctx, "@google/gemini-cli@"+version)
	if err != nil {
		return nil, err
	}
	bundle := filepath.Join(prefix, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")
	if !exists(bundle) {
		return nil, fmt.Errorf("gemini cli %s: %s was not installed", version, bundle)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("gemini cli %s: %w: node is not installed", version, ErrUnavailable)
	}
	return &GeminiCLI{Version: version, Argv: []string{node, bundle}}, nil
}

// GeminiCLIForTest installs Gemini CLI at version for t, skipping or
// failing as ForTest does when npm cannot be reached.
func GeminiCLIForTest(t testing.TB, version string) *GeminiCLI {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := InstallGeminiCLI(ctx, version)
	return ForTest(t, c, err)
}

// GeminiSettings is the user settings file Print writes when the home has
// none: API-key authentication, no usage statistics.
const GeminiSettings = `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": false}}` + "\n"

// Print runs `gemini -p prompt -m gemini-2.5-flash s.Args...` once in
// s.Dir: its own HOME
// (whose .gemini/settings.json is GeminiSettings unless the caller wrote
// one), GEMINI_API_KEY, GOOGLE_GEMINI_BASE_URL at s.BaseURL (a GeminiAPI),
// the working folder trusted (GEMINI_CLI_TRUST_WORKSPACE: Gemini CLI reads
// no project GEMINI.md in an untrusted one), nothing of the caller's
// environment but PATH.
func (c *GeminiCLI) Print(t testing.TB, s Session, prompt string) Result {
	t.Helper()
	home := s.Home
	if home == "" {
		home = t.TempDir()
	}
	settings := filepath.Join(home, ".gemini", "settings.json")
	if !exists(settings) {
		if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(settings, []byte(GeminiSettings), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// An explicit model: with the default ("auto") a classifier first asks
	// the model for a JSON verdict, which the stand-in does not give, and
	// retries for a minute and a half before it routes.
	args := append(append([]string{}, c.Argv...), "-p", prompt, "-m", "gemini-2.5-flash")
	args = append(args, s.Args...)
	return run(t, "gemini -p", args, s.Dir, append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"USER=realclient",
		"GEMINI_API_KEY=realclient-test-key",
		"GOOGLE_GEMINI_BASE_URL=" + s.BaseURL,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"GEMINI_CLI_NO_RELAUNCH=true",
		"TERM=dumb",
		"NO_COLOR=1",
		"CI=",
	}, s.Env...))
}

// GeminiAPI starts a Recorder that answers the Gemini API as a model would
// that always says reply: POST .../models/M:generateContent with one
// candidate, :streamGenerateContent?alt=sse with the same as one
// server-sent event, :countTokens with a count, and anything else with a
// 404 in the API's error envelope. Point Gemini CLI at it with
// GOOGLE_GEMINI_BASE_URL=URL().
func GeminiAPI(t testing.TB, reply string) *Recorder {
	return NewRecorder(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, method, _ := strings.Cut(r.URL.Path, ":")
		answer := map[string]any{
			"candidates": []map[string]any{{
				"content":      map[string]any{"role": "model", "parts": []map[string]string{{"text": reply}}},
				"finishReason": "STOP", "index": 0,
			}},
			"usageMetadata": map[string]int{"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11},
			"modelVersion":  "gemini-realclient",
		}
		switch {
		case r.Method == http.MethodPost && method == "generateContent":
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(answer)
		case r.Method == http.MethodPost && method == "streamGenerateContent":
			w.Header().Set("Content-Type", "text/event-stream")
			data, _ := json.Marshal(answer)
			fmt.Fprintf(w, "data: %s\r\n\r\n", data)
		case r.Method == http.MethodPost && method == "countTokens":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"totalTokens": 10}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":{"code":404,"message":%q,"status":"NOT_FOUND"}}`, "no "+r.Method+" "+r.URL.Path+" here")
		}
	}))
}
