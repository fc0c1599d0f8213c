package health

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// Conflicting values: one identifier given different values in different
// topics. A value is read from prose only (fenced code is examples, not
// claims) in two shapes:
//
//   - a setting at the start of a line or list item, `timeout: 30s`,
//     `timeout = 30s`;
//   - an identifier that reads as one (it holds `_` or `.`, or is in
//     backticks) followed by is, =, :, to, at or of and the value,
//     anywhere in a line: "set `pool_max_conns` to 32".
//
// A value is a number with what follows it (30s, 16, 1.5GB, 80%) or a
// truth (true, false, on, off, yes, no, enabled, disabled); dates are no
// values. A topic giving one identifier two values (a change told as
// history, a list of choices) states neither, and is left out for it.
// Identifiers and values compare case-folded, a unit written apart joined
// ("30 s" is "30s").

var (
	settingLine = regexp.MustCompile("^\\s*(?:[-*+]\\s+)?`?([A-Za-z][A-Za-z0-9_.-]*)`?\\s*[:=]\\s*`?" + valuePattern)
	namedValue  = regexp.MustCompile("(?:`([A-Za-z_][A-Za-z0-9_.-]*)`|\\b([A-Za-z_][A-Za-z0-9]*[_.][A-Za-z0-9_.]*[A-Za-z0-9]))\\s*(?:=|:|\\bis\\b|\\bto\\b|\\bat\\b|\\bof\\b)\\s*`?" + valuePattern)
	datePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)
)

const valuePattern = `(\d[0-9A-Za-z.%/_-]*(?:\s?(?:ms|s|sec|seconds?|m|min|minutes?|h|hours?|d|days?|kb|mb|gb|kib|mib|gib)\b)?|true|false|on|off|yes|no|enabled|disabled)\b`

// statedValue is one topic's value of an identifier and where it says it.
type statedValue struct {
	key, value, shown string
	line              int
}

// statedValues returns what a topic's prose sets each identifier to: only
// identifiers given exactly one value.
func statedValues(key, content string) map[string]statedValue {
	all := map[string][]statedValue{}
	var f protocol.Fence
	n := 0
	for l := range strings.Lines(content) {
		n++
		line := strings.TrimRight(l, "\r\n")
		if f.Code(line) || strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue
		}
		if strings.ContainsAny(line, ":=") {
			for _, m := range settingLine.FindAllStringSubmatch(line, -1) {
				all[strings.ToLower(m[1])] = append(all[strings.ToLower(m[1])], value(key, m[1], m[2], n))
			}
		}
		if !mayName(line) {
			continue
		}
		for _, m := range namedValue.FindAllStringSubmatch(line, -1) {
			id := m[1] + m[2]
			all[strings.ToLower(id)] = append(all[strings.ToLower(id)], value(key, id, m[3], n))
		}
	}
	out := map[string]statedValue{}
	for id, vs := range all {
		vs = slices.DeleteFunc(vs, func(v statedValue) bool { return datePattern.MatchString(v.value) })
		if len(vs) == 0 {
			continue
		}
		same := !slices.ContainsFunc(vs, func(v statedValue) bool { return v.value != vs[0].value })
		if same {
			out[id] = vs[0]
		}
	}
	return out
}

// value is one statement of an identifier's value.
func value(key, id, v string, line int) statedValue {
	norm := strings.ToLower(strings.TrimRight(v, "."))
	norm = strings.Replace(norm, " ", "", 1)
	return statedValue{key: key, value: norm, shown: id + " = " + strings.TrimRight(v, "."), line: line}
}

// conflicts returns a finding for each identifier that two or more topics
// give different values, every place listed.
func conflicts(topics []topic) []Finding {
	byID := map[string][]statedValue{}
	for _, t := range topics {
		for id, v := range t.values {
			byID[id] = append(byID[id], v)
		}
	}
	var out []Finding
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		vs := byID[id]
		if !slices.ContainsFunc(vs, func(v statedValue) bool { return v.value != vs[0].value }) {
			continue
		}
		var keys, places []string
		for _, v := range vs {
			keys = append(keys, v.key)
			places = append(places, fmt.Sprintf("%s (%s line %d)", v.shown, v.key, v.line))
		}
		out = append(out, Finding{
			Kind:       KindConflictingValues,
			Keys:       keys,
			Detail:     fmt.Sprintf("%s is given %d different values: %s", id, countValues(vs), strings.Join(places, "; ")),
			Suggestion: fmt.Sprintf("decide which value of %s holds and correct the other topics", id),
		})
	}
	return out
}

// countValues is how many distinct values vs holds.
func countValues(vs []statedValue) int {
	seen := map[string]bool{}
	for _, v := range vs {
		seen[v.value] = true
	}
	return len(seen)
}

// mayName reports whether line may hold a namedValue: a backtick, or a
// '_' or '.' between two letters or digits. Most prose lines hold
// neither, and the scan is much cheaper than the expression.
func mayName(line string) bool {
	if strings.IndexByte(line, '`') >= 0 {
		return true
	}
	for i := 1; i+1 < len(line); i++ {
		if (line[i] == '_' || line[i] == '.') && isWordByte(line[i-1]) && isWordByte(line[i+1]) {
			return true
		}
	}
	return false
}

// isWordByte is an ASCII letter, digit or underscore.
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
