package deploytest

import (
	"bufio"
	"io"
	"strings"
)

// Unit is a parsed systemd unit: section → key → values in order (a key
// may repeat, as SystemCallFilter does).
type Unit map[string]map[string][]string

// Get returns the last value of key in section, or "".
func (u Unit) Get(section, key string) string {
	v := u[section][key]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// ParseUnit reads a systemd unit file. It knows sections, comments and
// key=value lines; it does not join continuations.
func ParseUnit(r io.Reader) Unit {
	u := Unit{}
	section := ""
	scan := bufio.NewScanner(r)
	for scan.Scan() {
		line := strings.TrimSpace(scan.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
			if u[section] == nil {
				u[section] = map[string][]string{}
			}
		default:
			k, v, ok := strings.Cut(line, "=")
			if ok && section != "" {
				k = strings.TrimSpace(k)
				u[section][k] = append(u[section][k], strings.TrimSpace(v))
			}
		}
	}
	return u
}
