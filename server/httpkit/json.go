package httpkit

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// WriteJSON writes v as the response body with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil { // our own types always marshal; never leak the error
		http.Error(w, `{"error":{"type":"api_error","message":"encoding failed","details":{"error_code":"internal"}}}`, http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
