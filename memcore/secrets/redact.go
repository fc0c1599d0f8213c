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

// firstCredential returns the span of the earliest credential in s,
// widened over every other rule's match that overlaps it: a token that
// holds another rule's token (a fine-grained GitHub PAT whose body contains
// "ghp_..."), or two that overlap, go out whole rather than leaving the
// outer token's ends in the text.
func firstCredential(s string) (start, end int, ok bool) {
	type span struct{ start, end int }
	var spans []span
	for i, positions := range keywords.find(s) {
		if len(positions) == 0 {
			continue
		}
		if st, en, found := table[i].first(s, positions); found {
			spans = append(spans, span{st, en})
		}
	}
	if len(spans) == 0 {
		return 0, 0, false
	}
	start, end = spans[0].start, spans[0].end
	for _, sp := range spans[1:] {
		if sp.start < start || (sp.start == start && sp.end > end) {
			start, end = sp.start, sp.end
		}
	}
	for widened := true; widened; {
		widened = false
		for _, sp := range spans {
			if sp.start < end && sp.end > end && sp.start >= start {
				end, widened = sp.end, true
			}
		}
	}
	return start, end, true
}
