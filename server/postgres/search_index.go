package postgres

import (
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/searchtext"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// searchDocs is the search text of a write's puts, by key, computed by
// the caller before the write is queued (see searchtext.Prepare).
type searchDocs map[string]searchtext.Entry

func docsOf(w server.Write) searchDocs {
	return searchtext.Prepare(w.Puts, func(p server.Put) (string, string) { return p.Key, p.Content })
}

// of returns the search text of ch (empty for a delete).
func (d searchDocs) of(ch writeplan.Change) searchtext.Entry {
	if ch.Op == server.OpDelete {
		return searchtext.Entry{}
	}
	if e, ok := d[ch.Key]; ok {
		return e
	}
	return searchtext.EntryOf(ch.Key, ch.Content)
}

// searchLinks are the lines of the memory indexes a group changes, by
// index key, as its last change leaves them (nil: deleted).
type searchLinks map[string]map[string]string

func (l *searchLinks) set(ch writeplan.Change, e searchtext.Entry) {
	if !searchtext.IsIndex(ch.Key) {
		return
	}
	if *l == nil {
		*l = searchLinks{}
	}
	(*l)[ch.Key] = e.Links
}

const (
	dropLinks = `DELETE FROM search_links WHERE repo = $1 AND source = $2`
	saveLinks = `INSERT INTO search_links (repo, source, key, line)
		SELECT $1, $2, k, setweight(to_tsvector('simple', $3), 'C') || to_tsvector('simple', l)
		FROM unnest($4::text[], $5::text[]) AS x(k, l)`
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
		lines[i] = links[k]
	}
	b.Queue(saveLinks, repo, source, searchtext.Scope(repo), keys, lines)
}
