package server

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/teammem/teammem/server/internal/searchtext"
)

// Search limits.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 50
	// SearchCandidates bounds the results of one query, so that a word
	// found in every entry costs about what a rarer one does (ranking
	// every match would grow with the repositories):
	// Postgres takes at most this many entries matching by their own
	// words (and as many index lines) and ranks those; SQLite reads its
	// matches in rank order and stops at the page's end, never past this
	// many. Every page of a query is cut from the same order, so pages
	// follow each other; a query matching more is better narrowed than
	// paged through.
	SearchCandidates = 250
	// MaxSearchOffset is how deep pages go: no page starts past the
	// candidates.
	MaxSearchOffset = SearchCandidates
)

// SearchQuery is one search as a caller asks it.
type SearchQuery struct {
	Text   string // what the person typed; see searchtext.Parse
	Repo   string // "": every repository the principal can read
	Limit  int    // results per page; <= 0: DefaultSearchLimit; capped at MaxSearchLimit
	Cursor string // "": the first page; else SearchPage.Next of the previous page
}

// SearchPage is one page of results, best first. Next is the cursor of the
// next page, "" when there is none.
type SearchPage struct {
	Results []SearchResult
	Next    string
}

// SearchResult is one live entry matching a query. Score orders the
// results of one query, higher first (see SearchScore); it is not
// comparable across queries.
type SearchResult struct {
	Repo    string
	Key     string
	Version int64 // the entry's version, as in a snapshot
	Score   float64
	Snippet Snippet
}

// Snippet is a plain-text excerpt with the matches marked by code-point
// offsets; see searchtext.Snippet.
type Snippet = searchtext.Snippet

// SearchTerm is one term of a search: its normalised words, which a match
// holds adjacent and in order.
type SearchTerm = searchtext.Term

// SearchRequest is what Store.Search matches: live entries holding every
// term (in their key, frontmatter name or description, or body), or whose
// memory-index line holds every term.
type SearchRequest struct {
	Terms []SearchTerm
	// Repos are the repositories searched, sorted. AllRepos adds every
	// team repository, never a personal one (IsPersonal) that Repos does
	// not list.
	Repos    []string
	AllRepos bool
	Limit    int // > 0
	Offset   int // >= 0
}

// SearchHit is one result of Store.Search, with the entry's content and
// what its score is made of (see SearchScore).
type SearchHit struct {
	Repo      string
	Key       string
	Version   int64
	Tier      int       // see SearchTier
	UpdatedAt time.Time // the entry's last write
	Content   string
}

// Search finds the live entries matching q.Text in the repositories p can
// read: q.Repo alone, or all of them. Results from other repositories are
// never read: the store is given the readable set and filters on it inside
// its query. Errors: an invalid query, limit or cursor (a *RequestError),
// an invalid repo, ErrForbidden (q.Repo not readable), the store's.
func (s *Service) Search(ctx context.Context, p Principal, q SearchQuery) (SearchPage, error) {
	terms, err := searchtext.Parse(q.Text)
	if err != nil {
		return SearchPage{}, invalidf(ReasonInvalidParameter, "q: %v", err)
	}
	req := SearchRequest{Terms: terms, Limit: q.Limit}
	switch {
	case q.Limit < 0:
		return SearchPage{}, invalidf(ReasonInvalidParameter, "limit must be a positive number")
	case q.Limit == 0:
		req.Limit = DefaultSearchLimit
	case q.Limit > MaxSearchLimit:
		req.Limit = MaxSearchLimit
	}
	scope := ""
	if q.Repo != "" {
		canon, err := s.authorize(p, q.Repo, PermRead)
		if err != nil {
			return SearchPage{}, err
		}
		req.Repos, scope = []string{canon}, canon
	} else if req.Repos, req.AllRepos, err = s.readable(ctx, p); err != nil {
		return SearchPage{}, err
	}
	bind := cursorBinding(terms, scope)
	if q.Cursor != "" {
		if req.Offset, err = decodeCursor(q.Cursor, bind); err != nil {
			return SearchPage{}, err
		}
	}
	if !req.AllRepos && len(req.Repos) == 0 {
		return SearchPage{}, nil
	}
	want := req.Limit
	req.Limit++ // one more tells whether there is a next page
	hits, err := s.store.Search(ctx, req)
	if err != nil {
		return SearchPage{}, fmt.Errorf("search: %w", err)
	}
	var page SearchPage
	if len(hits) > want {
		hits = hits[:want]
		if next := req.Offset + want; next < MaxSearchOffset {
			page.Next = encodeCursor(next, bind)
		}
	}
	page.Results = make([]SearchResult, len(hits))
	now := s.cfg.Now()
	for i, h := range hits {
		page.Results[i] = SearchResult{Repo: h.Repo, Key: h.Key, Version: h.Version, Score: SearchScore(h.Tier, h.UpdatedAt, now),
			Snippet: searchtext.SnippetOf(h.Content, terms)}
		s.noteRead(h.Repo, h.Key)
	}
	return page, nil
}

// readable returns the repositories p can read, sorted, or all true when p
// reads every team repository there is or will be (a grant on `**`): repos
// then lists p's own personal repositories only, which no grant reaches.
func (s *Service) readable(ctx context.Context, p Principal) (repos []string, all bool, err error) {
	for _, g := range p.Grants {
		if g.Perm >= PermRead && slices.Equal(g.Glob, []string{"**"}) {
			all = true
		}
	}
	prefixes := p.listPrefixes()
	if all { // every team repository is searched without naming it
		prefixes = p.personalPrefixes()
	}
	states, err := s.reposUnder(ctx, p, prefixes)
	if err != nil {
		return nil, false, err
	}
	for _, st := range states {
		repos = append(repos, st.Repo)
	}
	return repos, all, nil
}

// A cursor is the offset of the next page and a hash binding it to the
// query's terms and scope, so that a cursor given with another query is
// refused instead of paging through it from a wrong place.
const cursorVersion = 1

func cursorBinding(terms []SearchTerm, scope string) [8]byte {
	h := sha256.Sum256([]byte(searchtext.Key(terms) + "\x01" + scope))
	return [8]byte(h[:8])
}

func encodeCursor(offset int, bind [8]byte) string {
	b := binary.AppendUvarint([]byte{cursorVersion}, uint64(offset))
	return base64.RawURLEncoding.EncodeToString(append(b, bind[:]...))
}

func decodeCursor(c string, bind [8]byte) (int, error) {
	bad := invalidf(ReasonInvalidParameter, "cursor is not the next page of this query (pass the `next` value of the previous page with the same q and repo)")
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) < 1+1+8 || b[0] != cursorVersion {
		return 0, bad
	}
	off, n := binary.Uvarint(b[1:])
	if n <= 0 || 1+n+8 != len(b) || [8]byte(b[1+n:]) != bind || off >= MaxSearchOffset {
		return 0, bad
	}
	return int(off), nil
}
