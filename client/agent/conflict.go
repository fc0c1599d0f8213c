package agent

import (
	"path"
	"strings"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
)

// conflictMarker separates a conflict copy's stem from its time and host.
const conflictMarker = protocol.ConflictMarker

// conflictTimeFormat is the UTC time in a conflict copy's name; it holds no
// character that a key or a Windows file name forbids.
const conflictTimeFormat = "20060102T150405Z"

// ConflictName returns the key of the conflict copy of key made at time at
// on host: "<stem>.conflict-<UTC time>-<host><ext>", for example
// "notes/db.conflict-20260102T030405Z-laptop.md". Characters of host that a
// key may not hold become "-"; an empty host becomes "unknown".
func ConflictName(key string, at time.Time, host string) string {
	ext := path.Ext(key)
	stem := strings.TrimSuffix(key, ext)
	return stem + conflictMarker + at.UTC().Format(conflictTimeFormat) + "-" + cleanHost(host) + ext
}

// cleanHost keeps ASCII letters, digits, "-" and "_" of host (at most 63).
func cleanHost(host string) string {
	var b strings.Builder
	for _, r := range host {
		if b.Len() == 63 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	if s := strings.Trim(b.String(), "-"); s != "" {
		return s
	}
	return "unknown"
}
