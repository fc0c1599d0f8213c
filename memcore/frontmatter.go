package memcore

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// ErrFrontmatter reports a frontmatter block that is not valid YAML mapping.
var ErrFrontmatter = errors.New("invalid frontmatter")

// ParseFrontmatter splits a leading `---` YAML block from content. The block
// must start on the first line and end with a line holding only `---`;
// otherwise there is no frontmatter and body is content unchanged (fm nil).
// When the block is present but not a valid YAML mapping, the block is still
// removed from body and err wraps ErrFrontmatter; fm then holds the `paths`
// entry alone when that parses on its own (so a rules file stays
// conditional), else nil. A block that YAML rejects is first retried with
// plain values quoted where they hold a character YAML reserves or ": "
// (`paths: **/*.ts`, `description: API rules: apply to handlers`), as
// Claude Code's frontmatter parser does.
func ParseFrontmatter(content string) (fm map[string]any, body string, err error) {
	block, body, ok := splitFrontmatter(content)
	if !ok {
		return nil, content, nil
	}
	fm, err = decodeFrontmatter(block)
	if err != nil {
		if fm, err2 := decodeFrontmatter(quoteSpecialValues(block)); err2 == nil {
			return fm, body, nil
		}
		return salvagePaths(block), body, fmt.Errorf("parse frontmatter: %w: %v", ErrFrontmatter, err)
	}
	return fm, body, nil
}

// splitFrontmatter returns the YAML between the opening and closing `---`
// lines and the rest of the content.
func splitFrontmatter(content string) (block, body string, ok bool) {
	first, rest, found := strings.Cut(content, "\n")
	if !found || strings.TrimRight(first, " \t\r") != "---" {
		return "", content, false
	}
	for off := 0; off <= len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		line, next := rest[off:], len(rest)+1
		if end >= 0 {
			line, next = rest[off:off+end], off+end+1
		}
		if strings.TrimRight(line, " \t\r") == "---" {
			if next > len(rest) {
				next = len(rest)
			}
			return rest[:off], rest[next:], true
		}
		off = next
	}
	return "", content, false
}

// decodeFrontmatter decodes a YAML block into a map; an empty block is an
// empty map.
func decodeFrontmatter(block string) (map[string]any, error) {
	fm := map[string]any{}
	if strings.TrimSpace(block) == "" {
		return fm, nil
	}
	if err := yaml.Unmarshal([]byte(block), &fm); err != nil {
		return nil, err
	}
	if fm == nil {
		fm = map[string]any{}
	}
	return fm, nil
}

// FrontmatterGlobs returns the `paths` globs of a parsed frontmatter: a YAML
// list of strings, or one string of comma-separated globs (commas inside
// braces do not split). Brace sets are expanded (`src/*.{ts,tsx}` becomes
// `src/*.ts` and `src/*.tsx`), a trailing `/**` is kept, empty entries are
// dropped. It returns nil when there are no globs, or when every glob is
// `**` (a rule that applies everywhere is unconditional).
func FrontmatterGlobs(fm map[string]any) []string {
	var raw []string
	switch v := fm["paths"].(type) {
	case string:
		raw = splitOutsideBraces(v)
	case []any:
		for _, item := range v {
			if s, ok := item.(string); ok {
				raw = append(raw, splitOutsideBraces(s)...)
			}
		}
	}
	var globs []string
	for _, r := range raw {
		for _, g := range expandBraces(strings.TrimSpace(r)) {
			if g = strings.TrimSpace(g); g != "" {
				globs = append(globs, g)
			}
		}
	}
	for _, g := range globs {
		if g != "**" {
			return globs
		}
	}
	return nil
}
