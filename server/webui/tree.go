package webui

import (
	"html"
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/teammem/teammem/server"
)

// treeRow is one line of a repository's tree: a folder, or an entry with
// its size, last author and time.
type treeRow struct {
	Depth  int
	Name   string // the last path segment (a folder's name ends in "/")
	Folder bool
	Entry  server.Entry
	Author string
}

// entryTree lays out live entries (sorted by key) as a tree. Byte order
// keeps every folder's keys together, so a folder line is due whenever a
// key's folders differ from the previous key's.
func entryTree(live []server.Entry, authors map[string]string) []treeRow {
	rows := make([]treeRow, 0, len(live)+len(live)/4)
	var prev []string
	for _, e := range live {
		segs := strings.Split(e.Key, "/")
		dirs := segs[:len(segs)-1]
		common := 0
		for common < len(dirs) && common < len(prev) && dirs[common] == prev[common] {
			common++
		}
		for d := common; d < len(dirs); d++ {
			rows = append(rows, treeRow{Depth: d, Name: dirs[d] + "/", Folder: true})
		}
		rows = append(rows, treeRow{Depth: len(dirs), Name: segs[len(segs)-1], Entry: e, Author: authors[e.Key]})
		prev = dirs
	}
	return rows
}

// treeHTML renders the tree's table rows. It is written here rather than
// in the template because a 1,000-entry page would otherwise make some
// 5,000 reflective template calls (most of the page's time); every value
// is escaped with html.EscapeString, inside double-quoted attributes or
// text, which is what html/template would do in those contexts.
func treeHTML(repo string, rows []treeRow) template.HTML {
	var b strings.Builder
	b.Grow(len(rows) * 220)
	esc := html.EscapeString
	for _, r := range rows {
		d := strconv.Itoa(r.Depth)
		if r.Folder {
			b.WriteString(`<tr class="folder"><td class="d` + d + `" colspan="4">` + esc(r.Name) + "</td></tr>\n")
			continue
		}
		e := r.Entry
		b.WriteString(`<tr><td class="d` + d + `"><a href="` + esc(entryURL(repo, e.Key, 0)) + `">` + esc(r.Name) +
			`</a></td><td class="num">` + esc(humanBytes(e.Size)) + `</td><td>` + esc(r.Author) +
			`</td><td><time datetime="` + e.UpdatedAt.UTC().Format(time.RFC3339) + `">` + esc(ago(e.UpdatedAt)) + "</time></td></tr>\n")
	}
	return template.HTML(b.String()) //nolint:gosec // every value escaped above
}
