package httpapi

import (
	"time"
)

// formatTime formats t as RFC 3339 UTC with milliseconds; the zero time
// (a repository never written) is the Unix epoch.
func formatTime(t time.Time) string {
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
