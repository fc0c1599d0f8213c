package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/searchtext"
)

// searchSQL finds the live entries of the searched repositories whose own
// words match $1 (the terms and the scope tokens) or whose index line
// matches $3, ranks them and reads the page's content.
//
// The candidates are bounded: the first $7 (server.SearchCandidates)
// entries the GIN index yields, and as many index lines. $1 holds no
// weight and, for a one-word term, no phrase, so the index answers it
// exactly: a candidate's vector (about 2.5 KB for a 2 KB note, stored out
// of line) is read only to check a phrase. The candidates are ranked in
// three tiers: first those whose name (the key's words, its file name,
// the frontmatter name: the weight-A words of search_title, $2) holds
// every term, then those whose title (search_title, $3) or index line
// does, then the others; in each tier the entry written most recently
// first (then by repository and key). For an entry the backfill has not
// reached yet, search_title is NULL and the title is read from search
// ($2 and $9, its weight-A and -B words). The tier comes out with the
// entry's updated_at, which the Service makes the score of.
// $6 are the repositories searched, also given as scope tokens in $1 for
// the index lookup; with $8, every team repository too (but no personal
// one that $6 does not name: those are kept out of the candidates
// themselves, so that they take none of them, since a count short of the
// bound would tell that somebody's personal memory holds the words).
const searchSQL = `WITH q AS (
		SELECT $1::tsquery AS own, $2::tsquery AS name, $3::tsquery AS words, $9::tsquery AS title
	), own AS (
		SELECT e.repo, e.key, e.updated_at, e.search_title, e.search FROM entries e, q WHERE e.search @@ q.own
			AND (NOT $8 OR left(e.repo, 1) <> '` + server.PersonalMark + `' OR e.repo = ANY($6)) LIMIT $7
	), hits AS (
		SELECT o.repo, o.key, o.updated_at, CASE
			WHEN coalesce(o.search_title @@ q.name, o.search @@ q.name) THEN 3
			WHEN coalesce(o.search_title @@ q.words, o.search @@ q.title) THEN 2
			ELSE 1 END AS tier FROM own o, q
		UNION ALL
		SELECT l.repo, l.key, e.updated_at, 2 FROM (SELECT l.repo, l.key FROM search_links l, q WHERE l.line @@ q.own
			AND (NOT $8 OR left(l.repo, 1) <> '` + server.PersonalMark + `' OR l.repo = ANY($6)) LIMIT $7) l
		JOIN entries e ON e.repo = l.repo AND e.key = l.key AND NOT e.deleted
	), ranked AS (
		SELECT h.repo, h.key, max(h.tier) AS tier, max(h.updated_at) AS updated_at
		FROM hits h WHERE ($8 AND left(h.repo, 1) <> '` + server.PersonalMark + `') OR h.repo = ANY($6)
		GROUP BY h.repo, h.key
		ORDER BY tier DESC, updated_at DESC, h.repo, h.key
		LIMIT $4 OFFSET $5
	)
	SELECT r.repo, r.key, e.version, r.tier, r.updated_at, e.content
	FROM ranked r JOIN entries e ON e.repo = r.repo AND e.key = r.key AND NOT e.deleted
	ORDER BY r.tier DESC, r.updated_at DESC, r.repo, r.key`

// Search finds live entries; see server.Store. The query's words are never
// tsquery syntax: each is a quoted lexeme of letters and digits only,
// built by tsquery.
func (db *DB) Search(ctx context.Context, q server.SearchRequest) ([]server.SearchHit, error) {
	if !q.AllRepos && len(q.Repos) == 0 {
		return nil, nil
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	// Every team repository and the personal ones listed, or the listed
	// ones only.
	if err := db.indexSearched(ctx, q.Repos, q.AllRepos); err != nil {
		return nil, err
	}
	args := []any{tsquery(q, true, ""), tsquery(q, false, ":A"), tsquery(q, false, ""), q.Limit, q.Offset,
		nonNilRepos(q.Repos), server.SearchCandidates, q.AllRepos, tsquery(q, false, ":AB")}
	rows, err := db.pool.Query(ctx, searchSQL, args...)
	if err != nil {
		return nil, wrap("search", err)
	}
	hits, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (server.SearchHit, error) {
		var h server.SearchHit
		err := row.Scan(&h.Repo, &h.Key, &h.Version, &h.Tier, &h.UpdatedAt, &h.Content)
		return h, err
	})
	if err != nil {
		return nil, wrap("search", err)
	}
	return hits, nil
}

// tsquery is the tsquery text of q's terms, ANDed: each the phrase of its
// quoted words with the weight restriction w, or the phrases of its forms
// ORed; with scoped, also one of the repositories' scope tokens (indexed
// with weight C, matched without a weight so that GIN answers exactly: no
// word of an entry looks like a scope token, see searchtext.Scope).
func tsquery(q server.SearchRequest, scoped bool, w string) string {
	var b strings.Builder
	if scoped && !q.AllRepos {
		b.WriteString("(")
		for i, r := range q.Repos {
			if i > 0 {
				b.WriteString(" | ")
			}
			lexeme(&b, searchtext.Scope(r), "")
		}
		b.WriteString(") & ")
	}
	for i, t := range q.Terms {
		if i > 0 {
			b.WriteString(" & ")
		}
		b.WriteString("(")
		for j, f := range t.Forms {
			if j > 0 {
				b.WriteString(" | ")
			}
			b.WriteString("(")
			for k, word := range f {
				if k > 0 {
					b.WriteString(" <-> ")
				}
				lexeme(&b, word, w)
			}
			b.WriteString(")")
		}
		b.WriteString(")")
	}
	return b.String()
}

// lexeme writes word as a quoted tsquery lexeme with the weight
// restriction weight.
func lexeme(b *strings.Builder, word, weight string) {
	quoteLexeme(b, word)
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
