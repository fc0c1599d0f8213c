package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/searchtext"
)

// searchSQL ranks the live entries of the searched repositories whose own
// words match $1 (the terms and the scope tokens) or whose index line
// matches $3, and reads the page's content. Results come in two tiers:
// first the entries whose title ($2: the terms restricted to weight A, the
// key, frontmatter name and description) or index line holds every term,
// then the others; inside a tier by ts_rank with a title word counting ten
// times a body word. Score is the tier plus the rank mapped into [0, 1).
// %s is the repository filter ($6, the repositories), also given as
// scope tokens in $1 for the index lookup.
const searchSQL = `WITH q AS (
		SELECT to_tsquery('simple', $1) AS own, to_tsquery('simple', $2) AS title, to_tsquery('simple', $3) AS words
	), hits AS (
		SELECT e.repo, e.key, (e.search @@ q.title)::int AS tier, ts_rank('{0.1, 0, 0, 1}', e.search, q.words) AS bm
		FROM entries e, q WHERE e.search @@ q.own
		UNION ALL
		SELECT l.repo, l.key, 1, 0 FROM search_links l, q WHERE l.line @@ q.own
	), ranked AS (
		SELECT h.repo, h.key, e.version, max(h.tier) + max(h.bm) / (1 + max(h.bm)) AS score
		FROM hits h JOIN entries e ON e.repo = h.repo AND e.key = h.key AND NOT e.deleted %s
		GROUP BY h.repo, h.key, e.version
		ORDER BY score DESC, h.repo, h.key
		LIMIT $4 OFFSET $5
	)
	SELECT r.repo, r.key, r.version, r.score, e.content
	FROM ranked r JOIN entries e ON e.repo = r.repo AND e.key = r.key
	ORDER BY r.score DESC, r.repo, r.key`

// Search finds live entries; see server.Store. The query's words are never
// tsquery syntax: each is a quoted lexeme of letters and digits only,
// built by tsquery.
func (db *DB) Search(ctx context.Context, q server.SearchRequest) ([]server.SearchHit, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	args := []any{tsquery(q, true, ""), tsquery(q, false, ":A"), tsquery(q, false, ""), q.Limit, q.Offset}
	filter := "AND h.repo = ANY($6)"
	if q.AllRepos { // every team repository, and the personal ones listed
		filter = "AND (left(h.repo, 1) <> '" + server.PersonalMark + "' OR h.repo = ANY($6))"
	}
	args = append(args, nonNilRepos(q.Repos))
	rows, err := db.pool.Query(ctx, strings.Replace(searchSQL, "%s", filter, 1), args...)
	if err != nil {
		return nil, wrap("search", err)
	}
	hits, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (server.SearchHit, error) {
		var h server.SearchHit
		err := row.Scan(&h.Repo, &h.Key, &h.Version, &h.Score, &h.Content)
		return h, err
	})
	if err != nil {
		return nil, wrap("search", err)
	}
	return hits, nil
}

// tsquery is the tsquery text of q's terms, each a phrase of quoted words
// with the weight restriction w, ANDed; with scoped, also one of the
// repositories' scope tokens (weight C).
func tsquery(q server.SearchRequest, scoped bool, w string) string {
	var b strings.Builder
	if scoped && !q.AllRepos {
		b.WriteString("(")
		for i, r := range q.Repos {
			if i > 0 {
				b.WriteString(" | ")
			}
			lexeme(&b, searchtext.Scope(r), ":C")
		}
		b.WriteString(") & ")
	}
	for i, t := range q.Terms {
		if i > 0 {
			b.WriteString(" & ")
		}
		b.WriteString("(")
		for j, word := range t {
			if j > 0 {
				b.WriteString(" <-> ")
			}
			lexeme(&b, word, w)
		}
		b.WriteString(")")
	}
	return b.String()
}

// lexeme writes word as a quoted tsquery lexeme. word holds letters and
// digits only; quotes and backslashes would still be escaped.
func lexeme(b *strings.Builder, word, weight string) {
	b.WriteByte('\'')
	b.WriteString(strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(word))
	b.WriteByte('\'')
	b.WriteString(weight)
}

// nonNilRepos is repos as a Postgres array: nil would be NULL, which ANY
// treats as unknown rather than empty.
func nonNilRepos(repos []string) []string {
	if repos == nil {
		return []string{}
	}
	return repos
}
