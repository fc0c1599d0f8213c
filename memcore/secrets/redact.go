package secrets

// Redacted stands in for each credential Redact takes out.
const Redacted = "[REDACTED]"

// Redact returns s with every credential Scan would find in it replaced by
// Redacted, and s itself when it holds none: the form in which a name
// that carries a credential (a memory file called ghp_….md) may be shown
// or logged. Like Scan, it keeps nothing of what it took out.
func Redact(s string) string {
	// Each pass takes out one credential and scans again, since the
	// offsets after it moved. No pattern matches Redacted, so each pass
	// leaves one credential fewer; the bound only guards against a rule
	// that one day would.
	for range len(s) + 1 {
		start, end, ok := firstCredential(s)
		if !ok {
			return s
		}
		s = s[:start] + Redacted + s[end:]
	}
	return s
}

// firstCredential returns the span of the first credential found in s (of
// the first rule, in table order, that finds one).
func firstCredential(s string) (start, end int, ok bool) {
	for i, positions := range keywords.find(s) {
		if len(positions) == 0 {
			continue
		}
		if start, end, ok := table[i].first(s, positions); ok {
			return start, end, true
		}
	}
	return 0, 0, false
}
