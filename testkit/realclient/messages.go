package realclient

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// MessagesAPI starts a Recorder that answers Anthropic's Messages API as
// a model would that always says reply: POST /v1/messages with a minimal
// valid message (as server-sent events when the request asks for a
// stream), POST /v1/messages/count_tokens with a count, and everything
// else with a not_found_error. Point a client at it with
// ANTHROPIC_BASE_URL=URL().
func MessagesAPI(t testing.TB, reply string) *Recorder {
	return NewRecorder(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
			var req struct {
				Model  string `json:"model"`
				Stream bool   `json:"stream"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
				return
			}
			if req.Stream {
				streamMessage(w, req.Model, reply)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(message(req.Model, reply))
		case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"input_tokens":10}`)
		default:
			apiError(w, http.StatusNotFound, "not_found_error", "no "+r.Method+" "+r.URL.Path+" here")
		}
	}))
}

// message is a complete, non-streamed assistant message saying text.
func message(model, text string) map[string]any {
	return map[string]any{
		"id": "msg_realclient", "type": "message", "role": "assistant", "model": model,
		"content":     []map[string]any{{"type": "text", "text": text}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 10, "output_tokens": 1},
	}
}

// streamMessage writes the message as the Messages API's event stream.
func streamMessage(w http.ResponseWriter, model, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	start := message(model, "")
	start["content"] = []any{}
	start["stop_reason"] = nil
	events := []struct {
		name string
		data any
	}{
		{"message_start", map[string]any{"type": "message_start", "message": start}},
		{"content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]string{"type": "text", "text": ""}}},
		{"content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "text_delta", "text": text}}},
		{"content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}},
		{"message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 1}}},
		{"message_stop", map[string]any{"type": "message_stop"}},
	}
	for _, e := range events {
		data, _ := json.Marshal(e.data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, data)
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// apiError writes the Messages API's error envelope.
func apiError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q}}`, typ, msg)
}
