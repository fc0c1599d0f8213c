package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"

	"github.com/teammem/teammem/server/internal/searchtext"
)

// The statements keeping the search index (see migration 8), run by the
// writer in the transaction of the write they index.
const (
	docIDSQL      = `SELECT id FROM search_docs WHERE repo = ? AND key = ?`
	docAddSQL     = `INSERT INTO search_docs (repo, key) VALUES (?, ?) RETURNING id`
	ftsPutSQL     = `INSERT OR REPLACE INTO search_fts (rowid, scope, title, body) VALUES (?, ?, ?, ?)`
	docDeleteSQL  = `DELETE FROM search_docs WHERE repo = ? AND key = ? RETURNING id`
	ftsDeleteSQL  = `DELETE FROM search_fts WHERE rowid = ?`
	linksDropSQL  = `DELETE FROM search_links WHERE repo = ? AND source = ? RETURNING id`
	linkFtsDelSQL = `DELETE FROM search_links_fts WHERE rowid = ?`
	linkAddSQL    = `INSERT INTO search_links (repo, source, key) VALUES (?, ?, ?) RETURNING id`
	linkFtsAddSQL = `INSERT INTO search_links_fts (rowid, scope, line) VALUES (?, ?, ?)`
)

var searchWriteSQL = []string{pendingAddSQL, pendingDropSQL, docIDSQL, docAddSQL, ftsPutSQL, docDeleteSQL, ftsDeleteSQL, linksDropSQL, linkFtsDelSQL, linkAddSQL, linkFtsAddSQL}

// searchStmts are the index statements, part of writeStmts.
type searchStmts struct {
	pendingAdd, pendingDrop, docID, docAdd, ftsPut, docDelete, ftsDelete, linksDrop, linkFtsDel, linkAdd, linkFtsAdd *sql.Stmt
}

func (s *searchStmts) all() []**sql.Stmt {
	return []**sql.Stmt{&s.pendingAdd, &s.pendingDrop, &s.docID, &s.docAdd, &s.ftsPut, &s.docDelete, &s.ftsDelete, &s.linksDrop, &s.linkFtsDel, &s.linkAdd, &s.linkFtsAdd}
}

// indexChange is one change of the search index: the words of a put
// replace the key's, a delete removes them. A batch collects its writes'
// changes and makes them at its end, outside the writes' savepoints: FTS5
// writes its pending terms to a new segment at every savepoint, so
// indexing inside each write's savepoint wrote one segment per write, and
// merged them, instead of one per batch.
type indexChange struct {
	repo, key string
	del       bool
	e         searchtext.Entry
}

// apply makes the index changes, in order, in two passes: first the rows
// of search_docs and search_links, then the FTS5 rows. A statement that
// may need rolling back alone (an upsert, a DELETE … RETURNING) opens a
// statement savepoint, and FTS5 writes its pending terms to a new segment
// at every savepoint: interleaved, each put would write its own segment.
//
// The FTS5 statements run in rowid order, table by table (a rowid's own
// statements keep their order): FTS5 also writes its pending terms out
// whenever a row comes below the last one written, so a batch of puts in
// the order they came (keys written before, with older rowids) wrote a
// segment for nearly every put (TestIndexBatchInRowidOrder: 30 puts, 30
// segments; now one).
func (s *searchStmts) apply(ctx context.Context, changes []indexChange) error {
	var fts []ftsOp
	for _, c := range changes {
		var err error
		if c.del {
			fts, err = s.unindex(ctx, fts, c.repo, c.key)
		} else {
			fts, err = s.put(ctx, fts, c.repo, c.key, c.e)
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
	linksFTS                   // search_links_fts
)

// put updates the rows of search_docs and search_links for a put of key
// and appends the FTS5 statements indexing it to fts.
func (s *searchStmts) put(ctx context.Context, fts []ftsOp, repo, key string, e searchtext.Entry) ([]ftsOp, error) {
	// Most puts replace an indexed key: its row is read, not rewritten
	// (an upsert wrote it again on every put).
	var id int64
	err := s.docID.QueryRowContext(ctx, repo, key).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		err = s.docAdd.QueryRowContext(ctx, repo, key).Scan(&id)
	}
	if err != nil {
		return fts, wrap("index entry", err)
	}
	scope := searchtext.Scope(repo)
	fts = append(fts, ftsOp{entriesFTS, id, s.ftsPut, []any{scope, e.Title, e.Body}})
	if !searchtext.IsIndex(key) {
		return fts, nil
	}
	fts, err = s.dropLinks(ctx, fts, repo, key)
	if err != nil {
		return fts, err
	}
	for _, target := range slices.Sorted(maps.Keys(e.Links)) {
		if err := s.linkAdd.QueryRowContext(ctx, repo, key, target).Scan(&id); err != nil {
			return fts, wrap("index links", err)
		}
		fts = append(fts, ftsOp{linksFTS, id, s.linkFtsAdd, []any{scope, e.Links[target]}})
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
	case errors.Is(err, sql.ErrNoRows): // not indexed yet (see backfill)
	case err != nil:
		return fts, wrap("unindex entry", err)
	default:
		fts = append(fts, ftsOp{entriesFTS, id, s.ftsDelete, nil})
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
