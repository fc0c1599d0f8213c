package loadgen

import (
	"io"
	"net/http"
)

// floorETag is the one version the floor handler ever reports.
const floorETag = `"sha256:floor"`

// FloorHandler answers the read and put scenarios (not cas) with the
// least an HTTP handler can do: any bearer token is accepted, a GET with
// If-None-Match is a 304, any other GET a small fixed hashes body, and a
// PUT is read and acknowledged without being stored. Driven by the same
// scenarios, its server CPU per request is the floor that net/http and the
// Go runtime put under any server on this machine, the figure a real
// server's cost is compared with.
func FloorHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h := w.Header()
		h.Set("ETag", floorETag)
		switch r.Method {
		case http.MethodGet:
			if r.Header.Get("If-None-Match") != "" {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			h.Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"version":1,"checksum":"sha256:floor","entryChecksums":{},"deletedEntries":{}}`)
		case http.MethodPut:
			_, _ = io.Copy(io.Discard, r.Body)
			h.Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"checksum":"sha256:floor","version":1,"changed":[],"deleted":[]}`)
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	})
}
