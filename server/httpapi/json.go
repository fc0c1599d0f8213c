package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// writeJSON writes v as the response body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
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

// formatTime formats t as RFC 3339 UTC with milliseconds; the zero time
// (a repository never written) is the Unix epoch.
func formatTime(t time.Time) string {
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
