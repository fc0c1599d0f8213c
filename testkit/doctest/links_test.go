package doctest

import (
	"bytes"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// repoRoot is the checkout's root, from this package's folder.
const repoRoot = "../.."

// markdownFiles lists the repository's Markdown files, as git knows them
// (tracked or new, not ignored), leaving out test fixtures: the memory trees
// under testdata/ hold deliberately broken links.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", repoRoot, "ls-files", "--cached", "--others", "--exclude-standard", "*.md").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f == "" || strings.Contains("/"+f, "/testdata/") {
			continue
		}
		if _, err := os.Stat(filepath.Join(repoRoot, f)); err != nil {
			continue // deleted in the work tree
		}
		files = append(files, f)
	}
	return files
}

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// link is one link or image destination in a file.
type link struct {
	dest string
	line int
}

// parse returns the links of a Markdown document and the anchors its
// headings define (GitHub's rule: lowercase, punctuation dropped, spaces to
// hyphens, repeats numbered).
func parse(src []byte) (links []link, anchors map[string]bool) {
	doc := md.Parser().Parse(text.NewReader(src))
	anchors = map[string]bool{}
	seen := map[string]int{}
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			slug := headingSlug(string(nodeText(n, src)))
			if k := seen[slug]; k > 0 {
				anchors[slug+"-"+strconv.Itoa(k)] = true
			} else {
				anchors[slug] = true
			}
			seen[slug]++
		case *ast.Link:
			links = append(links, link{string(n.Destination), lineOf(n, src)})
		case *ast.Image:
			links = append(links, link{string(n.Destination), lineOf(n, src)})
		}
		return ast.WalkContinue, nil
	})
	return links, anchors
}

// nodeText is the plain text of a node's inline children.
func nodeText(n ast.Node, src []byte) []byte {
	var b bytes.Buffer
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		default:
			b.Write(nodeText(c, src))
		}
	}
	return b.Bytes()
}

var slugDrop = regexp.MustCompile(`[^\p{L}\p{N}\- _]`)

func headingSlug(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = slugDrop.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, " ", "-")
}

// lineOf is the 1-based line of the first text segment under n (0 if none).
func lineOf(n ast.Node, src []byte) int {
	for c := n; c != nil; c = c.FirstChild() {
		if t, ok := c.(*ast.Text); ok {
			return bytes.Count(src[:t.Segment.Start], []byte("\n")) + 1
		}
	}
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Lines().Len() > 0 {
			return bytes.Count(src[:p.Lines().At(0).Start], []byte("\n")) + 1
		}
	}
	return 0
}

// TestRelativeLinks fails on any relative link in the repository's Markdown
// that leads nowhere: a missing file or folder, a path outside the
// repository, or a #fragment no heading of the target defines.
func TestRelativeLinks(t *testing.T) {
	files := markdownFiles(t)
	if len(files) == 0 {
		t.Fatal("no Markdown files found")
	}
	anchorsOf := map[string]map[string]bool{}
	linksOf := map[string][]link{}
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		linksOf[f], anchorsOf[f] = parse(src)
	}
	checked := 0
	for _, f := range files {
		for _, l := range linksOf[f] {
			if problem := checkLink(f, l.dest, anchorsOf); problem != "" {
				t.Errorf("%s:%d: link %q: %s", f, l.line, l.dest, problem)
			}
			checked++
		}
	}
	t.Logf("%d links in %d files", checked, len(files))
}

// checkLink says what is wrong with dest, linked from file, or "".
func checkLink(file, dest string, anchorsOf map[string]map[string]bool) string {
	u, err := url.Parse(dest)
	if err != nil {
		return "not a URL: " + err.Error()
	}
	if u.Scheme != "" || u.Host != "" {
		return "" // external: not this test's business
	}
	target := file
	if u.Path != "" {
		if strings.HasPrefix(u.Path, "/") {
			return "absolute path: links must be relative to the file"
		}
		target = path.Clean(path.Join(path.Dir(file), u.Path))
		if target == ".." || strings.HasPrefix(target, "../") {
			return "leads outside the repository"
		}
		if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(target))); err != nil {
			return "no such file or folder"
		}
	}
	if u.Fragment == "" || !strings.HasSuffix(target, ".md") {
		return ""
	}
	anchors, ok := anchorsOf[target]
	if !ok {
		return ""
	}
	if !anchors[strings.ToLower(u.Fragment)] {
		return "no heading in " + target + " defines #" + u.Fragment
	}
	return ""
}

func TestCheckLinkFindsBrokenLinks(t *testing.T) {
	anchors := map[string]map[string]bool{"README.md": {"quick-start": true}, "docs/sync.md": {"merge": true}}
	for _, tc := range []struct{ file, dest string }{
		{"README.md", "../shared/spec/protocol.md"},
		{"README.md", "docs/missing.md"},
		{"README.md", "/etc/passwd"},
		{"README.md", "#no-such-heading"},
		{"docs/sync.md", "../README.md#nowhere"},
	} {
		if checkLink(tc.file, tc.dest, anchors) == "" {
			t.Errorf("%s → %q accepted", tc.file, tc.dest)
		}
	}
	for _, tc := range []struct{ file, dest string }{
		{"README.md", "#quick-start"},
		{"README.md", "https://example.com/x"},
		{"README.md", "LICENSE"},
		{"docs/sync.md", "../README.md#quick-start"},
		{"docs/sync.md", "#merge"},
	} {
		if p := checkLink(tc.file, tc.dest, anchors); p != "" {
			t.Errorf("%s → %q refused: %s", tc.file, tc.dest, p)
		}
	}
}

func TestHeadingSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Quick start":               "quick-start",
		"`teammem-agent run`":       "teammem-agent-run",
		"What's never pushed?":      "whats-never-pushed",
		"Tokens: create & revoke":   "tokens-create--revoke",
		"The CLAUDE.local.md block": "the-claudelocalmd-block",
		"Operations — backups":      "operations--backups",
	} {
		if got := headingSlug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
