package postgres

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server/internal/searchtext"
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

// indexed is an entry as the index takes it: its key, whether it is live,
// and its content.
type indexed struct {
	key     string
	deleted bool // a tombstone, or no row at all: it leaves the index
	content string
}

// batchKeys runs query, which lists keys and the size of the content each
// would index in the order they are indexed, maxKeys at most, and returns
// those one batch takes (see searchtext.BatchLen); more reports that the
// query listed maxKeys or that some were left.
func batchKeys(ctx context.Context, tx pgx.Tx, maxKeys int, query string, args ...any) (keys []string, more bool, err error) {
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return nil, false, err
	}
	var sizes []int64
	var key string
	var size int64
	if _, err := pgx.ForEachRow(rows, []any{&key, &size}, func() error {
		keys, sizes = append(keys, key), append(sizes, size)
		return nil
	}); err != nil {
		return nil, false, err
	}
	n := searchtext.BatchLen(sizes, maxKeys)
	return keys[:n], n < len(keys) || len(keys) == maxKeys, nil
}

// readIndexed reads the entries query returns as (key, deleted, content)
// rows, and records the batch's content in db.indexBatches.
func (db *DB) readIndexed(ctx context.Context, tx pgx.Tx, query string, args ...any) ([]indexed, error) {
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	var ents []indexed
	var e indexed
	var read int64
	if _, err := pgx.ForEachRow(rows, []any{&e.key, &e.deleted, &e.content}, func() error {
		ents, read = append(ents, e), read+int64(len(e.content))
		return nil
	}); err != nil {
		return nil, err
	}
	if len(ents) > 0 {
		db.indexBatches.Add(read)
	}
	return ents, nil
}

// indexEntries is the statement setting the vectors of the entries $2 of
// repository $1: $3 and $4 in tsvector text (see tsvectorText), NULL where
// $5 says the entry is deleted.
const indexEntries = `UPDATE entries e SET search = CASE WHEN x.d THEN NULL ELSE x.sv::tsvector END,
		search_title = CASE WHEN x.d THEN NULL ELSE x.st::tsvector END
	FROM unnest($2::text[], $3::text[], $4::text[], $5::bool[]) AS x(k, sv, st, d) WHERE e.repo = $1 AND e.key = x.k`

// queueIndex queues the statements bringing the index of repo's entries
// ents up to date: their vectors and, for a memory index, its lines.
func queueIndex(b *pgx.Batch, repo string, ents []indexed) {
	if len(ents) == 0 {
		return
	}
	keys, vectors, titles, deleted := make([]string, len(ents)), make([]string, len(ents)), make([]string, len(ents)),
		make([]bool, len(ents))
	for i, e := range ents {
		keys[i], deleted[i] = e.key, e.deleted
		var d searchDoc
		if !e.deleted {
			d = docOf(searchtext.EntryOf(e.key, e.content))
			vectors[i], titles[i] = withScope(repo, d.vector), d.title
		}
		if searchtext.IsIndex(e.key) {
			queueLinks(b, repo, e.key, d.links)
		}
	}
	b.Queue(indexEntries, repo, keys, vectors, titles, deleted)
}

const (
	dropLinks = `DELETE FROM search_links WHERE repo = $1 AND source = $2`
	saveLinks = `INSERT INTO search_links (repo, source, key, line)
		SELECT $1, $2, k, l::tsvector FROM unnest($3::text[], $4::text[]) AS x(k, l)`
)

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
