package realclient

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// ResponsesAPI starts a Recorder that answers OpenAI's Responses API as a
// model would that always says reply: POST /v1/responses with the event
// stream of one assistant message (Codex CLI always streams), GET
// /v1/models with an empty list, and anything else with a 404 in the
// API's error envelope. Point Codex CLI at it with a model provider whose
// base_url is URL()+"/v1" and wire_api "responses" (see Codex.Exec).
func ResponsesAPI(t testing.TB, reply string) *Recorder {
	return NewRecorder(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
			var req struct {
				Model string `json:"model"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				openAIError(w, http.StatusBadRequest, err.Error())
				return
			}
			streamResponse(w, req.Model, reply)
		case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"object":"list","data":[],"models":[]}`)
		default:
			openAIError(w, http.StatusNotFound, "no "+r.Method+" "+r.URL.Path+" here")
		}
	}))
}

// streamResponse writes one assistant message saying text as the
// Responses API's server-sent events.
func streamResponse(w http.ResponseWriter, model, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	item := func(status string, content []any) map[string]any {
		return map[string]any{"type": "message", "id": "msg_realclient", "status": status, "role": "assistant", "content": content}
	}
	part := map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
	response := func(status string, output []any) map[string]any {
		return map[string]any{"id": "resp_realclient", "object": "response", "created_at": 0, "status": status, "model": model,
			"output": output, "usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]int{"cached_tokens": 0},
				"output_tokens": 1, "output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": 11}}
	}
	done := item("completed", []any{part})
	events := []map[string]any{
		{"type": "response.created", "response": response("in_progress", []any{})},
		{"type": "response.output_item.added", "output_index": 0, "item": item("in_progress", []any{})},
		{"type": "response.output_text.delta", "item_id": "msg_realclient", "output_index": 0, "content_index": 0, "delta": text},
		{"type": "response.output_text.done", "item_id": "msg_realclient", "output_index": 0, "content_index": 0, "text": text},
		{"type": "response.output_item.done", "output_index": 0, "item": done},
		{"type": "response.completed", "response": response("completed", []any{done})},
	}
	for i, e := range events {
		e["sequence_number"] = i
		data, _ := json.Marshal(e)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e["type"], data)
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// openAIError writes OpenAI's error envelope.
func openAIError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","code":null}}`, msg)
}
