package memcore

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// yamlSpecialChars are the characters that make Claude Code's frontmatter
// parser quote a value on retry (its /[{}[\]*&#!|>%@`]|: /), together with
// the separator ": ".
const yamlSpecialChars = "{}[]*&#!|>%@`"

// quoteSpecialValues rewrites a YAML block that failed to parse: the plain
// value of every `key: value` line that holds a special character or ": "
// is double-quoted (escaping \ and "), and a list item that starts with a
// glob character is single-quoted. Quoted values, block scalar indicators
// and complete flow lists are left alone.
func quoteSpecialValues(block string) string {
	lines := strings.Split(block, "\n")
	for i, line := range lines {
		lines[i] = quoteLineValue(line)
	}
	return strings.Join(lines, "\n")
}

// quoteLineValue quotes the value part of one YAML line when needed.
func quoteLineValue(line string) string {
	trimmed := strings.TrimLeft(line, " \t")
	indent := line[:len(line)-len(trimmed)]
	if item, ok := strings.CutPrefix(trimmed, "- "); ok {
		value := strings.TrimSpace(item)
		if value == "" || !strings.ContainsAny(value[:1], "*&!{@`%") {
			return line
		}
		return indent + "- '" + strings.ReplaceAll(value, "'", "''") + "'"
	}
	key, value, ok := strings.Cut(trimmed, ": ")
	value = strings.TrimSpace(strings.TrimSuffix(value, "\r"))
	if !ok || !isPlainKey(key) || !needsQuotes(value) {
		return line
	}
	escaped := strings.ReplaceAll(strings.ReplaceAll(value, `\`, `\\`), `"`, `\"`)
	return indent + key + `: "` + escaped + `"`
}

// isPlainKey reports whether key is a bare YAML key of letters, digits, _
// and -.
func isPlainKey(key string) bool {
	if key == "" {
		return false
	}
	for _, r := range key {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// needsQuotes reports whether a plain value must be quoted to parse as the
// text it reads as.
func needsQuotes(value string) bool {
	switch {
	case value == "" || isQuoted(value) || isBlockIndicator(value) || isFlowList(value):
		return false
	}
	return strings.ContainsAny(value, yamlSpecialChars) || strings.Contains(value, ": ")
}

// isQuoted reports whether value is enclosed in matching quotes.
func isQuoted(value string) bool {
	return len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0]
}

// isBlockIndicator reports whether value opens a literal or folded block
// scalar (|, >, with chomping and indentation indicators).
func isBlockIndicator(value string) bool {
	return (value[0] == '|' || value[0] == '>') && strings.Trim(value[1:], "+-0123456789") == ""
}

// isFlowList reports whether value is a complete, valid YAML flow list
// (`[a/**, b]`), which quoting would turn into one string.
func isFlowList(value string) bool {
	if !strings.HasPrefix(value, "[") || !strings.HasSuffix(value, "]") {
		return false
	}
	var list []any
	return yaml.Unmarshal([]byte(value), &list) == nil
}

// salvagePaths decodes the top-level `paths` entry of a block that failed to
// parse as a whole: the `paths:` line and the indented or list lines after
// it, as they are and then quoted. It returns nil when there is no such
// entry or it does not parse either.
func salvagePaths(block string) map[string]any {
	lines := strings.Split(block, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "paths:") {
			continue
		}
		end := i + 1
		for end < len(lines) && lines[end] != "" && strings.ContainsAny(lines[end][:1], " \t-") {
			end++
		}
		entry := strings.Join(lines[i:end], "\n")
		for _, candidate := range []string{entry, quoteSpecialValues(entry)} {
			if fm, err := decodeFrontmatter(candidate); err == nil {
				return fm
			}
		}
		return nil
	}
	return nil
}

// frontmatterHasPaths reports whether content starts with a frontmatter
// block that has a top-level `paths` key, parseable or not.
func frontmatterHasPaths(content string) bool {
	block, _, ok := splitFrontmatter(content)
	if !ok {
		return false
	}
	for _, line := range strings.Split(block, "\n") {
		if strings.HasPrefix(line, "paths:") {
			return true
		}
	}
	return false
}
