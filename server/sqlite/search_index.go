package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/teammem/teammem/server/internal/searchtext"
)

// The statements keeping the search index (see migrations 8 and 13), run
// by the writer at the end of the batch whose marks, or backfill, they index.
const (
	docIDSQL       = `SELECT id FROM search_docs WHERE repo = ? AND key = ?`
	docAddSQL      = `INSERT INTO search_docs (id, repo, key) VALUES (?, ?, ?)`
	docMoveSQL     = `UPDATE search_docs SET id = ? WHERE id = ?`
	docLowestSQL   = `SELECT coalesce(min(id), 0) FROM search_docs`
	ftsAddSQL      = `INSERT INTO search_fts (rowid, scope, title, body) VALUES (?, ?, ?, ?)`
	titleAddSQL    = `INSERT INTO search_titles_fts (rowid, scope, title, scoped) VALUES (?, ?, ?, ?)`
	docDeleteSQL   = `DELETE FROM search_docs WHERE repo = ? AND key = ? RETURNING id`
	ftsDeleteSQL   = `DELETE FROM search_fts WHERE rowid = ?`
	titleDeleteSQL = `DELETE FROM search_titles_fts WHERE rowid = ?`
	linksDropSQL   = `DELETE FROM search_links WHERE repo = ? AND source = ? RETURNING id`
	linkFtsDelSQL  = `DELETE FROM search_links_fts WHERE rowid = ?`
	linkAddSQL     = `INSERT INTO search_links (repo, source, key) VALUES (?, ?, ?) RETURNING id`
	linkFtsAddSQL  = `INSERT INTO search_links_fts (rowid, scope, line) VALUES (?, ?, ?)`
)

var searchWriteSQL = []string{pendingAddSQL, pendingDropSQL, contentAtSQL, docIDSQL, docAddSQL, docMoveSQL, docLowestSQL, ftsAddSQL, titleAddSQL,
	docDeleteSQL, ftsDeleteSQL, titleDeleteSQL, linksDropSQL, linkFtsDelSQL, linkAddSQL, linkFtsAddSQL}

// searchStmts are the index statements, part of writeStmts.
type searchStmts struct {
	pendingAdd, pendingDrop, content, docID, docAdd, docMove, docLowest, ftsAdd, titleAdd,
	docDelete, ftsDelete, titleDelete, linksDrop, linkFtsDel, linkAdd, linkFtsAdd *sql.Stmt
}

func (s *searchStmts) all() []**sql.Stmt {
	return []**sql.Stmt{&s.pendingAdd, &s.pendingDrop, &s.content, &s.docID, &s.docAdd, &s.docMove, &s.docLowest, &s.ftsAdd, &s.titleAdd,
		&s.docDelete, &s.ftsDelete, &s.titleDelete, &s.linksDrop, &s.linkFtsDel, &s.linkAdd, &s.linkFtsAdd}
}

// contentAt reads key's content at version ("" when no revision holds it).
func (s *searchStmts) contentAt(ctx context.Context, repo, key string, version int64) (string, error) {
	var content string
	err := s.content.QueryRowContext(ctx, repo, key, version).Scan(&content)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return content, wrap("read entry to index", err)
}

// indexChange is one change of the search index: the words of a put
// replace the key's, a delete removes them, a backfill indexes the words
// of the entry already numbered doc. A batch collects its changes and
// makes them at its end, outside the writes' savepoints: FTS5 writes its
// pending terms to a new segment at every savepoint, so indexing inside
// each write's savepoint wrote one segment per write, and merged them,
// instead of one per batch.
type indexChange struct {
	repo, key string
	del       bool
	doc       int64 // a backfill's: the entry's search_docs id
	e         searchtext.Entry
}

// apply makes the index changes, in order, in two passes: first the rows
// of search_docs and search_links, then the FTS5 rows. A statement that
// may need rolling back alone (an upsert, a DELETE … RETURNING) opens a
// statement savepoint, and FTS5 writes its pending terms to a new segment
// at every savepoint: interleaved, each put would write its own segment.
//
// Each put takes the next id below every other (see migration 13): the
// entry indexed last is the newest, and comes first among its tier's
// matches.
//
// The FTS5 statements run in rowid order, table by table (a rowid's own
// statements keep their order): FTS5 also writes its pending terms out
// whenever a row comes below the last one written, so a batch in the
// order its changes came (each put's new row below the last, its old
// row above) wrote a segment for nearly every put
// (TestIndexBatchInRowidOrder: 30 puts, 30 segments; now one).
func (s *searchStmts) apply(ctx context.Context, changes []indexChange) error {
	var fts []ftsOp
	var lowest int64 // the lowest id so far, read at the first put
	read := false
	for _, c := range changes {
		var err error
		switch {
		case c.del:
			fts, err = s.unindex(ctx, fts, c.repo, c.key)
		case c.doc != 0:
			fts, err = s.words(ctx, fts, c.doc, c.repo, c.key, c.e)
		default:
			if !read {
				if err := s.docLowest.QueryRowContext(ctx).Scan(&lowest); err != nil {
					return wrap("index entries", err)
				}
				read = true
			}
			lowest--
			fts, err = s.put(ctx, fts, lowest, c.repo, c.key, c.e)
		}
		if err != nil {
			return err
		}
	}
	slices.SortStableFunc(fts, func(a, b ftsOp) int {
		return cmp.Or(cmp.Compare(a.table, b.table), cmp.Compare(a.rowid, b.rowid))
	})
	for _, op := range fts {
		if _, err := op.stmt.ExecContext(ctx, append([]any{op.rowid}, op.values...)...); err != nil {
			return wrap("index entries", err)
		}
	}
	return nil
}

// ftsOp is one statement on an FTS5 table, run by apply's second pass,
// on the table's row rowid: its arguments are rowid and values.
type ftsOp struct {
	table  ftsTable
	rowid  int64
	stmt   *sql.Stmt
	values []any
}

// The FTS5 tables.
type ftsTable int

const (
	entriesFTS ftsTable = iota // search_fts
	titlesFTS                  // search_titles_fts
	linksFTS                   // search_links_fts
)

// put moves key's row of search_docs to id, a new key's too, and appends
// the FTS5 statements replacing its words to fts.
func (s *searchStmts) put(ctx context.Context, fts []ftsOp, id int64, repo, key string, e searchtext.Entry) ([]ftsOp, error) {
	var old int64
	err := s.docID.QueryRowContext(ctx, repo, key).Scan(&old)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = s.docAdd.ExecContext(ctx, id, repo, key)
	case err == nil:
		// A row the backfill has not reached yet is not in the FTS5
		// tables: deleting it there changes nothing.
		fts = append(fts, ftsOp{entriesFTS, old, s.ftsDelete, nil}, ftsOp{titlesFTS, old, s.titleDelete, nil})
		_, err = s.docMove.ExecContext(ctx, id, old)
	}
	if err != nil {
		return fts, wrap("index entry", err)
	}
	return s.words(ctx, fts, id, repo, key, e)
}

// words appends the FTS5 statements indexing the entry numbered id to fts
// and, for a memory index, replaces its lines in search_links.
func (s *searchStmts) words(ctx context.Context, fts []ftsOp, id int64, repo, key string, e searchtext.Entry) ([]ftsOp, error) {
	scope := searchtext.Scope(repo)
	fts = append(fts, ftsOp{entriesFTS, id, s.ftsAdd, []any{scope, e.Title, e.Body}},
		ftsOp{titlesFTS, id, s.titleAdd, []any{scope, e.Title, scopedWords(scope, e.Title)}})
	if !searchtext.IsIndex(key) {
		return fts, nil
	}
	fts, err := s.dropLinks(ctx, fts, repo, key)
	if err != nil {
		return fts, err
	}
	for _, target := range slices.Sorted(maps.Keys(e.Links)) {
		var line int64
		if err := s.linkAdd.QueryRowContext(ctx, repo, key, target).Scan(&line); err != nil {
			return fts, wrap("index links", err)
		}
		fts = append(fts, ftsOp{linksFTS, line, s.linkFtsAdd, []any{scope, e.Links[target]}})
	}
	return fts, nil
}

// unindex removes the rows of key from search_docs (and, for a memory
// index, its lines from search_links) and appends the FTS5 statements
// removing its words to fts.
func (s *searchStmts) unindex(ctx context.Context, fts []ftsOp, repo, key string) ([]ftsOp, error) {
	var id int64
	err := s.docDelete.QueryRowContext(ctx, repo, key).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows): // never indexed: put and deleted between two indexings
	case err != nil:
		return fts, wrap("unindex entry", err)
	default:
		fts = append(fts, ftsOp{entriesFTS, id, s.ftsDelete, nil}, ftsOp{titlesFTS, id, s.titleDelete, nil})
	}
	if searchtext.IsIndex(key) {
		return s.dropLinks(ctx, fts, repo, key)
	}
	return fts, nil
}

// dropLinks removes the lines of the index source from search_links and
// appends the FTS5 statements removing their words to fts.
func (s *searchStmts) dropLinks(ctx context.Context, fts []ftsOp, repo, source string) ([]ftsOp, error) {
	rows, err := s.linksDrop.QueryContext(ctx, repo, source)
	if err != nil {
		return fts, wrap("unindex links", err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			_ = rows.Close()
			return fts, wrap("unindex links", err)
		}
		fts = append(fts, ftsOp{linksFTS, id, s.linkFtsDel, nil})
	}
	return fts, wrap("unindex links", errors.Join(rows.Err(), rows.Close()))
}

// scopedWords returns the words of text (normalised words separated by
// spaces) each behind scope, as one token: search_titles_fts's scoped
// column (see migration 13). A word that is not ASCII is replaced by scope
// alone, which no query token equals, so that the words keep their
// positions (a phrase matches only adjacent words) and no token is one
// FTS5's tokeniser would split differently from ours: its Unicode tables
// are older than Go's, and a word split there would leave a token of its
// own choosing in the column, another repository's perhaps.
func scopedWords(scope, text string) string {
	var b strings.Builder
	b.Grow(len(text) + len(scope)*(strings.Count(text, " ")+1))
	for w := range strings.FieldsSeq(text) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(scope)
		if isASCII(w) {
			b.WriteString(w)
		}
	}
	return b.String()
}

// isASCII reports whether s is ASCII only.
func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
