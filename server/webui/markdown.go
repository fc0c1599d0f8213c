package webui

import (
	"bytes"
	"html/template"
	"path"
	"regexp"
	"slices"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/teammem/teammem/memcore/protocol"
)

// markdown renders entries: GitHub-flavoured Markdown with raw HTML
// dropped (goldmark leaves it out unless told otherwise), relative links
// to other entries pointed at their entry pages, and the result passed
// through bluemonday's user-content policy, so no entry can run script
// whatever it holds. Safe for concurrent use.
type markdown struct {
	md     goldmark.Markdown
	policy *bluemonday.Policy
}

// linkBaseKey carries the entry being rendered to the link rewriter.
var linkBaseKey = parser.NewContextKey()

// linkBase is the entry a relative link is resolved against.
type linkBase struct{ repo, key string }

func newMarkdown() *markdown {
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(entryLinks{}, 100))),
	)
	policy := bluemonday.UGCPolicy()
	policy.RequireNoReferrerOnLinks(true)
	// GFM task lists: a disabled checkbox and nothing else.
	policy.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	policy.AllowAttrs("checked", "disabled").Matching(regexp.MustCompile(`^$`)).OnElements("input")
	return &markdown{md: md, policy: policy}
}

// render turns the Markdown of entry key of repo into safe HTML.
func (m *markdown) render(repo, key, src string) template.HTML {
	pc := parser.NewContext()
	pc.Set(linkBaseKey, linkBase{repo: repo, key: key})
	var buf bytes.Buffer
	if err := m.md.Convert([]byte(src), &buf, parser.WithContext(pc)); err != nil {
		return template.HTML("<p>This entry could not be rendered; see its raw text.</p>")
	}
	return template.HTML(m.policy.SanitizeBytes(buf.Bytes())) //nolint:gosec // sanitized just above
}

// entryLinks points links to other entries of the repository (relative
// paths such as `topics/db.md`) at their entry pages: the keys the one
// grammar of index links (protocol.LinkedKeys) reads in the text, and no
// other, where goldmark is more lenient (a destination with an unbalanced
// parenthesis, which CommonMark does not make a link).
type entryLinks struct{}

func (entryLinks) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	base, ok := pc.Get(linkBaseKey).(linkBase)
	if !ok {
		return
	}
	linked := protocol.LinkedKeys(path.Dir(base.key), string(reader.Source()))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if link, ok := n.(*ast.Link); ok && entering {
			if key, ok := linkedKey(base.key, string(link.Destination)); ok && slices.Contains(linked, key) {
				link.Destination = []byte(entryURL(base.repo, key, 0))
			}
		}
		return ast.WalkContinue, nil
	})
}

// linkedKey resolves a link found in entry from to the key it names, if
// it names one inside the repository: goldmark keeps the destination as
// written, and protocol.LinkKey reads it as every surface reads index
// links.
func linkedKey(from, dest string) (string, bool) {
	return protocol.LinkKey(path.Dir(from), dest)
}
