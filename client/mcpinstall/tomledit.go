package mcpinstall

import (
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// setTOMLTable returns doc with the table [prefix.name] (and its
// subtables) replaced by body's keys, or removed when body is "", every
// other line as it was; a new table is appended.
func setTOMLTable(doc []byte, prefix, name, body string) ([]byte, error) {
	var probe map[string]any
	if _, err := toml.Decode(string(doc), &probe); err != nil {
		return nil, fmt.Errorf("it is not valid TOML (%v); fix it or add the server by hand", err)
	}
	header := "[" + prefix + "." + name + "]"
	lines := strings.SplitAfter(string(doc), "\n")
	var out strings.Builder
	placed, inside := false, false
	for _, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "[") {
			inside = isTable(t, prefix, name)
			if inside && !placed && body != "" {
				out.WriteString(header + "\n" + body)
				placed = true
			}
		}
		if !inside {
			out.WriteString(l)
		}
	}
	if !placed && body != "" {
		s := out.String()
		if s != "" && !strings.HasSuffix(s, "\n") {
			out.WriteString("\n")
		}
		if s != "" {
			out.WriteString("\n")
		}
		out.WriteString(header + "\n" + body)
	}
	result := []byte(out.String())
	if _, err := toml.Decode(string(result), &probe); err != nil {
		return nil, fmt.Errorf("the edited file would not be valid TOML (%v): is %s.%s defined another way? edit it by hand", err, prefix, name)
	}
	return result, nil
}

// isTable reports whether a table header line opens [prefix.name] or one
// of its subtables, with the name bare or quoted.
func isTable(header, prefix, name string) bool {
	h := strings.TrimSpace(strings.Trim(strings.TrimSpace(strings.SplitN(header, "#", 2)[0]), "[]"))
	for _, n := range []string{name, `"` + name + `"`} {
		if h == prefix+"."+n || strings.HasPrefix(h, prefix+"."+n+".") {
			return true
		}
	}
	return false
}
