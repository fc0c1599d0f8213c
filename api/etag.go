package api

import "strings"

// ETag formats a dataset checksum as a strong ETag header value.
func ETag(checksum string) string { return `"` + checksum + `"` }

// ParseETag strips a W/ prefix and surrounding quotes from one entity tag.
func ParseETag(v string) string {
	v = strings.TrimSpace(v)
	v = strings.TrimPrefix(v, "W/")
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	return v
}

// ETagMatches reports whether an If-Match / If-None-Match header value (a
// comma-separated list of entity tags, or *) matches the current checksum.
// exists says whether the resource exists; * matches only an existing one.
func ETagMatches(header, checksum string, exists bool) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "" {
			continue
		}
		if tag == "*" {
			if exists {
				return true
			}
			continue
		}
		if exists && ParseETag(tag) == checksum {
			return true
		}
	}
	return false
}
