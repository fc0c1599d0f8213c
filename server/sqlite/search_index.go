package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"

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

// The statements keeping the search index (see migration 8), run by the
// writer in the transaction of the write they index.
const (
	docUpsertSQL = `INSERT INTO search_docs (repo, key) VALUES (?, ?)
		ON CONFLICT (repo, key) DO UPDATE SET key = excluded.key RETURNING id`
	ftsPutSQL     = `INSERT OR REPLACE INTO search_fts (rowid, scope, title, body) VALUES (?, ?, ?, ?)`
	docDeleteSQL  = `DELETE FROM search_docs WHERE repo = ? AND key = ? RETURNING id`
	ftsDeleteSQL  = `DELETE FROM search_fts WHERE rowid = ?`
	linksDropSQL  = `DELETE FROM search_links WHERE repo = ? AND source = ? RETURNING id`
	linkFtsDelSQL = `DELETE FROM search_links_fts WHERE rowid = ?`
	linkAddSQL    = `INSERT INTO search_links (repo, source, key) VALUES (?, ?, ?) RETURNING id`
	linkFtsAddSQL = `INSERT INTO search_links_fts (rowid, scope, line) VALUES (?, ?, ?)`
)

var searchWriteSQL = []string{docUpsertSQL, ftsPutSQL, docDeleteSQL, ftsDeleteSQL, linksDropSQL, linkFtsDelSQL, linkAddSQL, linkFtsAddSQL}

// searchStmts are the index statements, part of writeStmts.
type searchStmts struct {
	docUpsert, ftsPut, docDelete, ftsDelete, linksDrop, linkFtsDel, linkAdd, linkFtsAdd *sql.Stmt
}

func (s *searchStmts) all() []**sql.Stmt {
	return []**sql.Stmt{&s.docUpsert, &s.ftsPut, &s.docDelete, &s.ftsDelete, &s.linksDrop, &s.linkFtsDel, &s.linkAdd, &s.linkFtsAdd}
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

// indexChangeOf returns the index change of ch in repo. docs holds the
// put's words when the caller prepared them.
func indexChangeOf(repo string, ch writeplan.Change, docs searchDocs) indexChange {
	if ch.Op == server.OpDelete {
		return indexChange{repo: repo, key: ch.Key, del: true}
	}
	e, ok := docs[ch.Key]
	if !ok {
		e = searchtext.EntryOf(ch.Key, ch.Content)
	}
	return indexChange{repo: repo, key: ch.Key, e: e}
}

// apply makes the index changes, in order.
func (s *searchStmts) apply(ctx context.Context, changes []indexChange) error {
	for _, c := range changes {
		var err error
		if c.del {
			err = s.unindex(ctx, c.repo, c.key)
		} else {
			err = s.put(ctx, c.repo, c.key, c.e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *searchStmts) put(ctx context.Context, repo, key string, e searchtext.Entry) error {
	var id int64
	if err := s.docUpsert.QueryRowContext(ctx, repo, key).Scan(&id); err != nil {
		return wrap("index entry", err)
	}
	scope := searchtext.Scope(repo)
	if _, err := s.ftsPut.ExecContext(ctx, id, scope, e.Title, e.Body); err != nil {
		return wrap("index entry", err)
	}
	if !searchtext.IsIndex(key) {
		return nil
	}
	if err := s.dropLinks(ctx, repo, key); err != nil {
		return err
	}
	for _, target := range slices.Sorted(maps.Keys(e.Links)) {
		if err := s.linkAdd.QueryRowContext(ctx, repo, key, target).Scan(&id); err != nil {
			return wrap("index links", err)
		}
		if _, err := s.linkFtsAdd.ExecContext(ctx, id, scope, e.Links[target]); err != nil {
			return wrap("index links", err)
		}
	}
	return nil
}

func (s *searchStmts) unindex(ctx context.Context, repo, key string) error {
	var id int64
	err := s.docDelete.QueryRowContext(ctx, repo, key).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows): // not indexed yet (see backfill)
	case err != nil:
		return wrap("unindex entry", err)
	default:
		if _, err := s.ftsDelete.ExecContext(ctx, id); err != nil {
			return wrap("unindex entry", err)
		}
	}
	if searchtext.IsIndex(key) {
		return s.dropLinks(ctx, repo, key)
	}
	return nil
}

// dropLinks removes the lines of the index source.
func (s *searchStmts) dropLinks(ctx context.Context, repo, source string) error {
	rows, err := s.linksDrop.QueryContext(ctx, repo, source)
	if err != nil {
		return wrap("unindex links", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			_ = rows.Close()
			return wrap("unindex links", err)
		}
		ids = append(ids, id)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return wrap("unindex links", err)
	}
	for _, id := range ids {
		if _, err := s.linkFtsDel.ExecContext(ctx, id); err != nil {
			return wrap("unindex links", err)
		}
	}
	return nil
}
