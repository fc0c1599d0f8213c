package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/searchtext"
)

// searchSQL finds the live entries of the searched repositories (?7, see
// searchStatement) that hold every term in their own words (?1), in their
// title (?2, see titleExpr: the key's words, frontmatter name and description)
// or in an index line linking them (?3), ranks them and reads the page's
// content from each entry's current revision.
//
// Ranking, in three tiers: first the entries whose name (?9: the key's
// words, its file name, the frontmatter name) holds every term, then those
// whose title or index line does, then the others; in each tier the entry
// written most recently first (the lowest search_docs id, see migration
// 13). The tier comes out with the entry's updated_at, which the Service
// makes the score of.
//
// A page reads only as many matches as it shows and skips (?6 = offset +
// limit, at most server.SearchCandidates): FTS5 walks each doclist in
// rowid order, newest first, and stops there. The named entries come from
// search_names_fts and the titled ones from search_titles_fts, whose
// doclists are short; the others from search_fts, past them. Index lines are read newest first, up to the
// bound (?8). A named entry is titled too: when the titled walk stops
// before reaching some of the named ones, the page is full with the named
// and titled ones before the others.
//
// FTS5's bm25 is not used: its statistics count every row holding each
// phrase of the query, a walk of the whole doclist on every search
// whatever the LIMIT (long for a common word), and it tells nothing about
// a word found in most entries anyway.
//
// A search of every team repository (%own, %links) keeps the personal
// repositories it may not show out of the walk itself, so that they take
// no place in it (a page short of its rows would tell that somebody's
// personal memory holds the words); %filter is the repository filter of
// the page.
//
// search_docs holds live entries only; an index line may link a deleted
// key, which the join to search_docs drops.
const searchSQL = `WITH named AS (
		SELECT rowid AS id FROM search_names_fts WHERE search_names_fts MATCH ?9 %own(search_names_fts) ORDER BY rowid LIMIT ?6
	), titled AS (
		SELECT rowid AS id FROM search_titles_fts WHERE search_titles_fts MATCH ?2 %own(search_titles_fts) ORDER BY rowid LIMIT ?6
	), linked AS (
		SELECT d.id FROM (
			SELECT l.repo, l.key FROM search_links_fts JOIN search_links l ON l.id = search_links_fts.rowid
			WHERE search_links_fts MATCH ?3 %links ORDER BY search_links_fts.rowid DESC LIMIT ?8) l
		JOIN search_docs d ON d.repo = l.repo AND d.key = l.key
	), first (id) AS (
		SELECT id FROM titled UNION SELECT id FROM linked
	), ranked (id, tier) AS (
		SELECT id, 3 FROM named
		UNION ALL
		SELECT id, 2 FROM (SELECT id FROM first WHERE id NOT IN named ORDER BY id LIMIT ?6)
		UNION ALL
		SELECT id, 1 FROM (
			SELECT rowid AS id FROM search_fts WHERE search_fts MATCH ?1 %own(search_fts) AND rowid NOT IN first AND rowid NOT IN named
			ORDER BY rowid LIMIT ?6)
	), page AS (
		SELECT id, tier FROM ranked ORDER BY tier DESC, id LIMIT ?4 OFFSET ?5
	)
	SELECT d.repo, d.key, e.version, p.tier, e.updated_at, coalesce(v.content, '')
	FROM page p JOIN search_docs d ON d.id = p.id
		JOIN entries e ON e.repo = d.repo AND e.key = d.key AND e.deleted = 0
		LEFT JOIN revisions v ON v.repo = e.repo AND v.key = e.key AND v.version = e.version
	WHERE %filter
	ORDER BY p.tier DESC, p.id`

// The two search statements, prepared with the search pool: in the
// repositories listed (?7, a JSON array), and in every team repository and
// the personal ones listed. The list travels as one JSON parameter so that
// each is one statement, parsed once, whatever the number of repositories.
var (
	searchReposSQL = searchStatement(false)
	searchAllSQL   = searchStatement(true)
)

// searchReads are the search pool's prepared statements.
type searchReads struct{ repos, all *sql.Stmt }

func prepareSearchReads(ctx context.Context, pool *sql.DB) (*searchReads, error) {
	var f searchReads
	if err := prepareAll(ctx, pool, []prepared{{&f.repos, searchReposSQL}, {&f.all, searchAllSQL}}); err != nil {
		return nil, err
	}
	return &f, nil
}

func searchStatement(all bool) string {
	in := "IN (SELECT value FROM json_each(?7))"
	filter, links := "d.repo "+in, ""
	own := func(string) string { return "" }
	if all { // every team repository, and the personal ones listed
		team := func(repo string) string {
			return "(substr(" + repo + ", 1, 1) <> '" + server.PersonalMark + "' OR " + repo + " " + in + ")"
		}
		filter = team("d.repo")
		own = func(table string) string {
			return "AND (SELECT " + team("o.repo") + " FROM search_docs o WHERE o.id = " + table + ".rowid)"
		}
		links = "AND " + team("l.repo")
	}
	sql := strings.NewReplacer("%links", links, "%filter", filter).Replace(searchSQL)
	for _, table := range []string{"search_names_fts", "search_titles_fts", "search_fts"} {
		sql = strings.ReplaceAll(sql, "%own("+table+")", own(table))
	}
	return sql
}

// Search finds live entries; see server.Store. The query's words are
// never FTS5 syntax: each term is a quoted phrase of normalised words
// (letters and digits only), built by matchExprs.
func (db *DB) Search(ctx context.Context, q server.SearchRequest) ([]server.SearchHit, error) {
	if !q.AllRepos && len(q.Repos) == 0 {
		return nil, nil
	}
	if err := db.indexPending(ctx); err != nil {
		return nil, wrap("search", err)
	}
	repos, err := json.Marshal(append([]string{}, q.Repos...))
	if err != nil {
		return nil, wrap("search", err)
	}
	stmt := db.finds.repos
	if q.AllRepos {
		stmt = db.finds.all
	}
	own, name, title, lines := matchExprs(q)
	rows, err := stmt.QueryContext(ctx, own, title, lines,
		q.Limit, q.Offset, min(q.Offset+q.Limit, server.SearchCandidates), string(repos), server.SearchCandidates, name)
	if err != nil {
		return nil, wrap("search", err)
	}
	defer rows.Close()
	var hits []server.SearchHit
	for rows.Next() {
		var h server.SearchHit
		var at int64
		if err := rows.Scan(&h.Repo, &h.Key, &h.Version, &h.Tier, &at, &h.Content); err != nil {
			return nil, wrap("search", err)
		}
		h.UpdatedAt = fromMicros(at)
		hits = append(hits, h)
	}
	return hits, wrap("search", rows.Err())
}

// matchExprs returns the FTS5 expressions of q: over search_fts's title
// and body, over search_names_fts and search_titles_fts (see titleExpr)
// and over index lines. The repositories' scope tokens are computed once.
func matchExprs(q server.SearchRequest) (own, name, title, lines string) {
	var scopes []string // nil: every repository
	if !q.AllRepos {
		scopes = make([]string, len(q.Repos))
		for i, r := range q.Repos {
			scopes[i] = searchtext.Scope(r)
		}
	}
	return matchExpr(q.Terms, scopes, "{title body}"), titleExpr(q.Terms, scopes, "name"),
		titleExpr(q.Terms, scopes, "title"), matchExpr(q.Terms, scopes, "line")
}

// matchExpr is the FTS5 expression of terms over the columns cols, in
// the repositories of scopes (nil: all of them): the scope tokens, and
// every term as a phrase, ANDed.
func matchExpr(terms []server.SearchTerm, scopes []string, cols string) string {
	var b strings.Builder
	if scopes != nil {
		b.WriteString("scope : (")
		for i, scope := range scopes {
			if i > 0 {
				b.WriteString(" OR ")
			}
			quote(&b, scope)
		}
		b.WriteString(") AND ")
	}
	b.WriteString(cols + " : (")
	writeTerms(&b, terms, "")
	b.WriteString(")")
	return b.String()
}

// maxScopedRepos is how many repositories a search of its titles looks up
// by their scoped words (titleExpr): one doclist per word and repository.
const maxScopedRepos = 8

// titleExpr is the FTS5 expression of terms over the column col of
// search_titles_fts or search_names_fts: in a few repositories, when every
// word is ASCII, the terms' words behind each repository's scope token in
// the scoped column (see scopedWords), whose doclists hold that
// repository's entries only; otherwise matchExpr over col.
func titleExpr(terms []server.SearchTerm, scopes []string, col string) string {
	if scopes == nil || len(scopes) > maxScopedRepos || !asciiTerms(terms) {
		return matchExpr(terms, scopes, col)
	}
	var b strings.Builder
	b.WriteString("scoped : (")
	for i, scope := range scopes {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("(")
		writeTerms(&b, terms, scope)
		b.WriteString(")")
	}
	b.WriteString(")")
	return b.String()
}

// asciiTerms reports whether every word of terms is ASCII.
func asciiTerms(terms []server.SearchTerm) bool {
	for _, t := range terms {
		for _, f := range t.Forms {
			for _, w := range f {
				if !isASCII(w) {
					return false
				}
			}
		}
	}
	return true
}

// writeTerms writes every term, ANDed: a phrase of its words, each behind
// prefix, or the phrases of its forms ORed.
func writeTerms(b *strings.Builder, terms []server.SearchTerm, prefix string) {
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" AND ")
		}
		if len(t.Forms) > 1 {
			b.WriteString("(")
		}
		for j, f := range t.Forms {
			if j > 0 {
				b.WriteString(" OR ")
			}
			words := make([]string, len(f))
			for k, w := range f {
				words[k] = prefix + w
			}
			quote(b, strings.Join(words, " "))
		}
		if len(t.Forms) > 1 {
			b.WriteString(")")
		}
	}
}

// quote writes s as an FTS5 string. s holds letters, digits and spaces
// only; a double quote would still be escaped by doubling it.
func quote(b *strings.Builder, s string) {
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(s, `"`, `""`))
	b.WriteByte('"')
}
