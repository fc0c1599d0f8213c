package protocol

import "strings"

// Frontmatter is what the surfaces that show or index a memory read of its
// frontmatter: the one-line name, description and type of the `---` block
// at its top (the format the managed block tells the model to write).
type Frontmatter struct {
	Name, Description, Type string
}

// SplitFrontmatter returns the frontmatter of content — a first line "---"
// (after an optional byte order mark), `key: value` lines, a closing "---"
// line — and the text after it. Values may be quoted; other keys and lines
// are ignored. Without a closed block, ok is false and body is content.
func SplitFrontmatter(content string) (fm Frontmatter, body string, ok bool) {
	rest := strings.TrimPrefix(content, "\uFEFF")
	rest, open := strings.CutPrefix(rest, "---\n")
	if !open {
		if rest, open = strings.CutPrefix(strings.TrimPrefix(content, "\uFEFF"), "---\r\n"); !open {
			return Frontmatter{}, content, false
		}
	}
	for len(rest) > 0 {
		line, after, _ := strings.Cut(rest, "\n")
		rest = after
		line = strings.TrimSuffix(line, "\r")
		if line == "---" {
			return fm, rest, true
		}
		k, v, found := strings.Cut(line, ":")
		if !found {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		switch strings.TrimSpace(k) {
		case "name":
			fm.Name = v
		case "description":
			fm.Description = v
		case "type":
			fm.Type = v
		}
	}
	return Frontmatter{}, content, false
}
