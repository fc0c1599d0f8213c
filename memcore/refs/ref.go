// Package refs finds the code references of a memory topic file: the
// repository paths, line ranges and symbols a reader sees claimed in it
// (docs/memory-references.md). A reference is taken only from where the
// writer marked it as code — a code span, a link destination, or the
// frontmatter's `refs:` list — never guessed from prose, and never from a
// fenced or indented code block, whose content is an example rather than a
// claim. The package is pure: it reads text and says what it claims; the
// checks against a repository live elsewhere (client/refcheck).
package refs

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

// MaxRefs is the most references Extract returns for one file; a file
// holding more is checked on its first MaxRefs.
const MaxRefs = 64

// MaxRefText is the longest reference text taken, in bytes; a longer code
// span is not a reference.
const MaxRefText = 200

// Ref is one code reference of a topic file.
type Ref struct {
	// Text is the reference as written (`client/push.go:RetryPush`).
	Text string `json:"text"`
	// Path is the file or folder it names, relative to the repository's
	// top, slash-separated and clean.
	Path string `json:"path"`
	// Dir says the reference was written with a final slash: a folder.
	Dir bool `json:"dir,omitempty"`
	// Start and End are the 1-based line range it names (End == Start for
	// one line); 0 when it names none.
	Start int `json:"start,omitempty"`
	End   int `json:"end,omitempty"`
	// Symbol is the identifier it names in the file ("" for none), dotted
	// for a method (`Engine.Run`).
	Symbol string `json:"symbol,omitempty"`
	// Line is the 1-based line of the topic file that holds it.
	Line int `json:"line"`
}

var (
	// fragLinesRe is a GitHub line fragment: #L10 or #L10-L20.
	fragLinesRe = regexp.MustCompile(`#L(\d{1,7})(?:-L?(\d{1,7}))?$`)
	// colonLinesRe is a :10 or :10-20 suffix.
	colonLinesRe = regexp.MustCompile(`:(\d{1,7})(?:-(\d{1,7}))?$`)
	// colonSymbolRe is a :Symbol or :Type.Method suffix, optionally with ().
	colonSymbolRe = regexp.MustCompile(`:([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)(?:\(\))?$`)
	// symbolRe is a symbol on its own (in a code span before " in path").
	symbolRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)(?:\(\))?$`)
	// pathRe is the characters a repository path may hold.
	pathRe = regexp.MustCompile(`^[A-Za-z0-9_./+\-]+$`)
	// extRe is a file name's extension.
	extRe = regexp.MustCompile(`[^.]\.[A-Za-z0-9]{1,10}$`)
	// domainRe is a first path segment that is a host name (a Go module
	// path, a web address without scheme): gopkg.in/yaml.v3.
	domainRe = regexp.MustCompile(`^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$`)
)

// Parse reads one reference: a path with an optional `:10`, `:10-20`,
// `#L10`, `#L10-L20`, `:Symbol` or `:Type.Method` suffix. explicit is true
// for the frontmatter's list, where any relative path counts; elsewhere the
// path must look like one a writer means as a file of the repository (see
// looksLikePath). ok is false for text that is not a reference.
func Parse(s string, explicit bool) (Ref, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > MaxRefText {
		return Ref{}, false
	}
	r := Ref{Text: s}
	p := s
	if m := fragLinesRe.FindStringSubmatchIndex(p); m != nil {
		r.Start, r.End = lineRange(p, m)
		p = p[:m[0]]
	} else if m := colonLinesRe.FindStringSubmatchIndex(p); m != nil {
		r.Start, r.End = lineRange(p, m)
		p = p[:m[0]]
	} else if m := colonSymbolRe.FindStringSubmatchIndex(p); m != nil {
		r.Symbol = p[m[2]:m[3]]
		p = p[:m[0]]
	}
	if r.Start > r.End || r.Start == 0 && r.End != 0 {
		return Ref{}, false
	}
	var ok bool
	if r.Path, r.Dir, ok = cleanPath(p, explicit); !ok {
		return Ref{}, false
	}
	if r.Dir && (r.Start != 0 || r.Symbol != "") {
		return Ref{}, false
	}
	return r, true
}

// lineRange reads the line numbers of a fragLinesRe or colonLinesRe match.
func lineRange(s string, m []int) (start, end int) {
	start, _ = strconv.Atoi(s[m[2]:m[3]])
	end = start
	if m[4] >= 0 {
		end, _ = strconv.Atoi(s[m[4]:m[5]])
	}
	return start, end
}

// cleanPath checks and cleans a repository path: relative, inside the
// repository (no ".." that climbs out), no scheme, no spaces. dir reports a
// final slash.
func cleanPath(p string, explicit bool) (clean string, dir bool, ok bool) {
	if p == "" || !pathRe.MatchString(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "-") {
		return "", false, false
	}
	dir = strings.HasSuffix(p, "/")
	dotted := strings.HasPrefix(p, "./")
	clean = path.Clean(p)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", false, false
	}
	if !explicit && !looksLikePath(clean, dir, dotted) {
		return "", false, false
	}
	return clean, dir, true
}

// looksLikePath reports whether a path outside the frontmatter's list is
// one a writer means as a repository path: it names a folder (a final
// slash) or a file with an extension, and either holds a slash whose first
// segment is not a host name (`client/push.go`, `docs/`, not
// `gopkg.in/yaml.v3` nor `owner/repo`) or is written from the top
// (`./Makefile`). A bare file name (`main.go`) names no folder and is not a
// reference.
func looksLikePath(clean string, dir, dotted bool) bool {
	if dotted {
		return true
	}
	first, _, slash := strings.Cut(clean, "/")
	if !slash && !dir || domainRe.MatchString(first) && !strings.HasPrefix(first, ".") {
		return false
	}
	return dir || extRe.MatchString(path.Base(clean))
}
