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
// searchStatement) that hold every term in their own words (?1) or in an index
// line linking them (?3), ranks them and reads the page's content from each
// entry's current revision.
//
// The candidates are bounded: the server.SearchCandidates most recently
// indexed entries whose own words match (FTS5 walks its doclists newest
// first and stops there), and as many index lines. They are ranked in two
// tiers: first the entries whose title (?2: key, frontmatter name and
// description) or index line holds every term, then the others; ties by
// repository and key. The title match is only looked for among the
// candidates' rowids, so its cost is bounded too. Score is the tier.
//
// FTS5's bm25 is not used: its statistics count every row holding each
// phrase of the query, a walk of the whole doclist on every search (5 to
// 50 ms for a common word on 100,000 entries, whatever the LIMIT), and it
// tells nothing about a word found in most entries anyway.
//
// A search of every team repository (%own, %links) keeps the personal
// repositories it may not show out of the candidates themselves, so that
// they take none of them (a count short of the bound would tell that
// somebody's personal memory holds the words); %filter is the repository
// filter of the ranked hits.
//
// search_docs holds live entries only; an index line may link a deleted
// key, which the join to entries drops.
const searchSQL = `WITH own AS (
		SELECT rowid AS id FROM search_fts WHERE search_fts MATCH ?1 %own ORDER BY rowid DESC LIMIT ?6
	), titled AS (
		SELECT rowid AS id FROM search_fts
		WHERE search_fts MATCH ?2 AND rowid BETWEEN (SELECT min(id) FROM own) AND (SELECT max(id) FROM own)
	), hits (repo, key, tier) AS (
		SELECT d.repo, d.key, own.id IN titled FROM own JOIN search_docs d ON d.id = own.id
		UNION ALL
		SELECT repo, key, 1 FROM (
			SELECT l.repo, l.key FROM search_links_fts JOIN search_links l ON l.id = search_links_fts.rowid
			WHERE search_links_fts MATCH ?3 %links ORDER BY search_links_fts.rowid DESC LIMIT ?6) l
		WHERE EXISTS (SELECT 1 FROM entries e WHERE e.repo = l.repo AND e.key = l.key AND e.deleted = 0)
	), ranked AS (
		SELECT h.repo, h.key, max(h.tier) AS score
		FROM hits h WHERE %filter
		GROUP BY h.repo, h.key
		ORDER BY score DESC, h.repo, h.key
		LIMIT ?4 OFFSET ?5
	)
	SELECT r.repo, r.key, e.version, r.score, coalesce(v.content, '')
	FROM ranked r JOIN entries e ON e.repo = r.repo AND e.key = r.key AND e.deleted = 0
		LEFT JOIN revisions v ON v.repo = r.repo AND v.key = r.key AND v.version = e.version
	ORDER BY r.score DESC, r.repo, r.key`

// The two search statements, prepared with the read pool's others: in
// the repositories listed (?7, a JSON array), and in every team repository
// and the personal ones listed. The list travels as one JSON parameter so
// that each is one statement, parsed once, whatever the number of
// repositories (parsing this statement cost a third of a search's CPU).
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
	// The unary + keeps the planner from pushing the filter into hits,
	// where it would read the repository's every search_docs row.
	filter, own, links := "+h.repo "+in, "", ""
	if all { // every team repository, and the personal ones listed
		team := func(repo string) string {
			return "(substr(" + repo + ", 1, 1) <> '" + server.PersonalMark + "' OR " + repo + " " + in + ")"
		}
		filter = team("h.repo")
		own = "AND (SELECT " + team("d.repo") + " FROM search_docs d WHERE d.id = search_fts.rowid)"
		links = "AND " + team("l.repo")
	}
	return strings.NewReplacer("%own", own, "%links", links, "%filter", filter).Replace(searchSQL)
}

// Search finds live entries; see server.Store. The query's words are
// never FTS5 syntax: each term is a quoted phrase of normalised words
// (letters and digits only), built by matchExpr.
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
	rows, err := stmt.QueryContext(ctx, matchExpr(q, "{title body}"), matchExpr(q, "title"), matchExpr(q, "line"),
		q.Limit, q.Offset, server.SearchCandidates, string(repos))
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
