package oauth

import (
	"encoding/json"
	"net/http"
)

// writeJSON writes v as an OAuth JSON answer (never cached).
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, _ := json.Marshal(v)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body)
}

// writeOAuthError writes an OAuth error answer (RFC 6749 5.2).
func writeOAuthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}
