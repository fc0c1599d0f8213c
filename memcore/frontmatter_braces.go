package memcore

import "strings"

// maxBraceExpansion bounds the number of globs one pattern may expand to, so
// that hostile input such as `{a,b}{a,b}{a,b}...` cannot explode.
const maxBraceExpansion = 256

// splitOutsideBraces splits s at commas that are not inside `{...}`.
func splitOutsideBraces(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// expandBraces expands the first balanced `{a,b}` group of pattern and
// recurses, returning pattern itself when it has no group with a comma.
func expandBraces(pattern string) []string {
	open, close := findBraceGroup(pattern)
	if open < 0 {
		return []string{pattern}
	}
	prefix, suffix := pattern[:open], pattern[close+1:]
	var out []string
	for _, alt := range splitOutsideBraces(pattern[open+1 : close]) {
		if len(out) >= maxBraceExpansion {
			break
		}
		for _, e := range expandBraces(prefix + alt + suffix) {
			if len(out) >= maxBraceExpansion {
				return out
			}
			out = append(out, e)
		}
	}
	return out
}

// findBraceGroup finds the first `{...}` group at depth zero that contains a
// top-level comma; it returns -1, -1 when there is none.
func findBraceGroup(p string) (open, close int) {
	for i := 0; i < len(p); i++ {
		if p[i] != '{' {
			continue
		}
		depth := 0
		for j := i; j < len(p); j++ {
			switch p[j] {
			case '{':
				depth++
			case '}':
				depth--
			}
			if depth == 0 {
				if strings.Contains(p[i+1:j], ",") && len(splitOutsideBraces(p[i+1:j])) > 1 {
					return i, j
				}
				break
			}
		}
	}
	return -1, -1
}
