package secrets

import (
	"math"
	"regexp"
	"slices"
	"strings"
)

// Rule is one credential format. ID, Label and Keywords are for docs and
// tests; the pattern and its filters stay unexported.
type Rule struct {
	// ID is the stable rule identifier (gitleaks naming), e.g. "github-pat".
	ID string
	// Label is a human description, e.g. "GitHub personal access token".
	Label string
	// Keywords are lowercase substrings of every token the rule matches; the
	// rule's pattern runs only where one of them occurs (case-insensitively).
	Keywords []string

	re func() *regexp.Regexp // compiled on first use; group 1 is the credential; its start gives the line
	// entropyGroup is the group whose Shannon entropy (bits per byte) must
	// reach minEntropy; 0 means group 1.
	entropyGroup int
	minEntropy   float64
	// minLen is the least length of the entropy group (a bound kept out of
	// the pattern, where a counted repeat would slow RE2 down).
	minLen int
	// multiline rules match across lines (the PEM block), from a keyword's
	// line to the next "-----END" line; others are run on one line at a
	// time, so ^ and $ are the line's ends.
	multiline bool
	// keepRuns disables the placeholder filter (long runs of one character
	// or of ascending characters), for formats where such runs are real.
	keepRuns bool
	// wordStart requires that no word byte [0-9A-Za-z_] precede group 1: a
	// leading \b kept out of the pattern so that RE2 can skip ahead to the
	// pattern's literal prefix.
	wordStart bool
	// reject, when set, drops a candidate credential (an allowlist).
	reject func(secret string) bool
}

// Rules returns a copy of the rule table, in table order.
func Rules() []Rule {
	out := make([]Rule, len(table))
	for i, r := range table {
		r.Keywords = slices.Clone(r.Keywords)
		out[i] = r
	}
	return out
}

// first returns the span [start, end) of the rule's first accepted
// credential, trying the lines (or, for a multiline rule, the text) around
// each keyword hit.
func (r *Rule) first(content string, hits []int) (start, end int, ok bool) {
	scanned := -1
	for _, h := range hits {
		if h < scanned {
			continue // this line was already tried
		}
		lo, hi := lineBounds(content, h)
		if r.multiline {
			// A block's body cannot hold "--", so a match that starts at
			// this hit ends on the line of the next END marker.
			e := strings.Index(content[h:], "-----END")
			if e < 0 {
				return 0, 0, false
			}
			_, hi = lineBounds(content, h+e)
		}
		if start, end, ok := r.find(content, lo, hi); ok {
			return start, end, true
		}
		scanned = hi
	}
	return 0, 0, false
}

// find runs the pattern over content[lo:hi] and returns the absolute span
// of the first accepted credential (group 1).
func (r *Rule) find(content string, lo, hi int) (start, end int, ok bool) {
	window := content[lo:hi]
	for _, m := range r.re().FindAllStringSubmatchIndex(window, -1) {
		if r.accept(window, m) {
			return lo + m[2], lo + m[3], true
		}
	}
	return 0, 0, false
}

// accept applies the rule's filters to one regexp match.
func (r *Rule) accept(window string, m []int) bool {
	if r.wordStart && m[2] > 0 && isWordByte(window[m[2]-1]) {
		return false
	}
	secret := window[m[2]:m[3]]
	if r.reject != nil && r.reject(secret) {
		return false
	}
	g := r.entropyGroup
	if g == 0 {
		g = 1
	}
	body := window[m[2*g]:m[2*g+1]]
	if len(body) < r.minLen || entropy(body) < r.minEntropy {
		return false
	}
	return r.keepRuns || !placeholder(body)
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// placeholderRun is the run length that marks a hand-written stand-in: 8 or
// more copies of one character ("XXXXXXXX", "00000000") or 8 or more
// ascending characters ("abcdefgh", "12345678"). gitleaks drops the same
// shapes through its stopwords; a random token holds such a run with
// negligible probability.
const placeholderRun = 8

func placeholder(s string) bool { return hasRun(s, placeholderRun) }

// hasRun reports whether s holds n or more consecutive identical bytes or n
// or more consecutive ascending bytes (each one more than the last).
func hasRun(s string, n int) bool {
	same, up := 1, 1
	for i := 1; i < len(s); i++ {
		same = grow(same, s[i] == s[i-1])
		up = grow(up, s[i] == s[i-1]+1)
		if same >= n || up >= n {
			return true
		}
	}
	return false
}

func grow(run int, cont bool) int {
	if cont {
		return run + 1
	}
	return 1
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= lower[c] && lower[c] <= 'z'
}
