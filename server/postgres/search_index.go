package postgres

import (
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/searchtext"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// searchDoc is what the index holds for one put, in tsvector text form
// (see tsvectorText): the repository's scope token is added when the rows
// are stored (see withScope).
type searchDoc struct {
	vector string            // entries.search without the scope: title (A) and body (D) from position 2
	title  string            // entries.search_title
	links  map[string]string // a memory index's lines, by the key each links (search_links.line without the scope)
}

func docOf(e searchtext.Entry) searchDoc {
	d := searchDoc{
		vector: tsvectorText(2, vectorPart{e.Title, 'A'}, vectorPart{e.Body, 0}),
		title:  tsvectorText(1, vectorPart{e.Title, 0}),
	}
	if e.Links != nil {
		d.links = make(map[string]string, len(e.Links))
		for k, line := range e.Links {
			d.links[k] = tsvectorText(2, vectorPart{line, 0})
		}
	}
	return d
}

// withScope returns the vector text v with repo's scope token at position
// 1, weight C, before it.
func withScope(repo, v string) string {
	var b strings.Builder
	quoteLexeme(&b, searchtext.Scope(repo))
	b.WriteString(":1C")
	if v != "" {
		b.WriteByte(' ')
		b.WriteString(v)
	}
	return b.String()
}

// searchDocs is the search text of a write's puts, by key, computed by
// the caller before the write is queued (see searchtext.Prepare).
type searchDocs map[string]searchDoc

func docsOf(w server.Write) searchDocs {
	entries := searchtext.Prepare(w.Puts, func(p server.Put) (string, string) { return p.Key, p.Content })
	d := make(searchDocs, len(entries))
	for k, e := range entries {
		d[k] = docOf(e)
	}
	return d
}

// of returns the search text of ch (empty for a delete).
func (d searchDocs) of(ch writeplan.Change) searchDoc {
	if ch.Op == server.OpDelete {
		return searchDoc{}
	}
	if e, ok := d[ch.Key]; ok {
		return e
	}
	return docOf(searchtext.EntryOf(ch.Key, ch.Content))
}

// searchLinks are the lines of the memory indexes a group changes, by
// index key, as its last change leaves them (nil: deleted).
type searchLinks map[string]map[string]string

func (l *searchLinks) set(ch writeplan.Change, d searchDoc) {
	if !searchtext.IsIndex(ch.Key) {
		return
	}
	if *l == nil {
		*l = searchLinks{}
	}
	(*l)[ch.Key] = d.links
}

const (
	dropLinks = `DELETE FROM search_links WHERE repo = $1 AND source = $2`
	saveLinks = `INSERT INTO search_links (repo, source, key, line)
		SELECT $1, $2, k, l::tsvector FROM unnest($3::text[], $4::text[]) AS x(k, l)`
)

// queue queues the statements replacing the lines of each changed index.
func (l searchLinks) queue(b *pgx.Batch, repo string) {
	for _, source := range slices.Sorted(maps.Keys(l)) {
		queueLinks(b, repo, source, l[source])
	}
}

// queueLinks queues the statements replacing the lines of the index
// source with links.
func queueLinks(b *pgx.Batch, repo, source string, links map[string]string) {
	b.Queue(dropLinks, repo, source)
	if len(links) == 0 {
		return
	}
	keys := slices.Sorted(maps.Keys(links))
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = withScope(repo, links[k])
	}
	b.Queue(saveLinks, repo, source, keys, lines)
}
