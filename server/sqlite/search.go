package sqlite

import (
	"context"
	"strconv"
	"strings"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/searchtext"
)

// searchSQL ranks the live entries of the searched repositories (%s is
// the filter) that hold every term in their own words (?1) or in an
// index line linking them (?3), and reads the page's content from each
// entry's current revision. Results come in two tiers: first the entries
// whose title (?2: key, frontmatter name and description) or index line
// holds every term, then the others; inside a tier by bm25 over the title
// and body columns, a title word counting ten times a body word (the scope
// column only filters). Score is the tier plus bm25 mapped into [0, 1).
//
// Only the best ?6 (offset + limit) matches of the entries' own words are
// ranked further: bm25 over every match is cheap (85,000 rows in 10 ms),
// joining each to its entry is not. The index holds live entries only, so
// the entry is read for the page alone (an index line may link a deleted
// key: those are dropped by the join).
const searchSQL = `WITH titled AS (
		SELECT rowid FROM search_fts WHERE search_fts MATCH ?2
	), own AS (
		SELECT rowid AS id, rowid IN titled AS tier, -bm25(search_fts, 0.0, 10.0, 1.0) AS bm
		FROM search_fts WHERE search_fts MATCH ?1
		ORDER BY tier DESC, bm DESC LIMIT ?6
	), hits (repo, key, tier, bm) AS (
		SELECT d.repo, d.key, own.tier, own.bm FROM own JOIN search_docs d ON d.id = own.id
		UNION ALL
		SELECT l.repo, l.key, 1, 0.0
		FROM search_links_fts JOIN search_links l ON l.id = search_links_fts.rowid
		WHERE search_links_fts MATCH ?3
	), ranked AS (
		SELECT h.repo, h.key, max(h.tier) + max(h.bm) / (1.0 + max(h.bm)) AS score
		FROM hits h WHERE %s
		GROUP BY h.repo, h.key
		ORDER BY score DESC, h.repo, h.key
	)
	SELECT r.repo, r.key, e.version, r.score, coalesce(v.content, '')
	FROM ranked r JOIN entries e ON e.repo = r.repo AND e.key = r.key AND e.deleted = 0
		LEFT JOIN revisions v ON v.repo = r.repo AND v.key = r.key AND v.version = e.version
	ORDER BY r.score DESC, r.repo, r.key
	LIMIT ?4 OFFSET ?5`

// Search finds live entries; see server.Store. The query's words are
// never FTS5 syntax: each term is a quoted phrase of normalised words
// (letters and digits only), built by matchExpr.
func (db *DB) Search(ctx context.Context, q server.SearchRequest) ([]server.SearchHit, error) {
	args := []any{matchExpr(q, "{title body}"), matchExpr(q, "title"), matchExpr(q, "line"), q.Limit, q.Offset, q.Offset + q.Limit}
	ps := make([]string, len(q.Repos))
	for i, r := range q.Repos {
		ps[i] = "?" + strconv.Itoa(len(args)+1)
		args = append(args, r)
	}
	filter := "h.repo IN (" + strings.Join(ps, ", ") + ")"
	if q.AllRepos { // every team repository, and the personal ones listed
		filter = "(substr(h.repo, 1, 1) <> '" + server.PersonalMark + "' OR " + filter + ")"
	}
	rows, err := db.read.QueryContext(ctx, strings.Replace(searchSQL, "%s", filter, 1), args...)
	if err != nil {
		return nil, wrap("search", err)
	}
	defer rows.Close()
	var hits []server.SearchHit
	for rows.Next() {
		var h server.SearchHit
		if err := rows.Scan(&h.Repo, &h.Key, &h.Version, &h.Score, &h.Content); err != nil {
			return nil, wrap("search", err)
		}
		hits = append(hits, h)
	}
	return hits, wrap("search", rows.Err())
}

// matchExpr is the FTS5 expression of q over the columns cols: every term
// as a phrase, ANDed, and the repositories' scope tokens.
func matchExpr(q server.SearchRequest, cols string) string {
	var b strings.Builder
	if !q.AllRepos {
		b.WriteString("scope : (")
		for i, r := range q.Repos {
			if i > 0 {
				b.WriteString(" OR ")
			}
			quote(&b, searchtext.Scope(r))
		}
		b.WriteString(") AND ")
	}
	b.WriteString(cols + " : (")
	for i, t := range q.Terms {
		if i > 0 {
			b.WriteString(" AND ")
		}
		quote(&b, strings.Join(t, " "))
	}
	b.WriteString(")")
	return b.String()
}

// quote writes s as an FTS5 string. s holds letters, digits and spaces
// only; a double quote would still be escaped by doubling it.
func quote(b *strings.Builder, s string) {
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(s, `"`, `""`))
	b.WriteByte('"')
}
