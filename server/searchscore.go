package server

import "time"

// The tiers of a search result, best first: where its entry holds every
// term of the query.
const (
	SearchTierBody  = 1 // in its words, anywhere
	SearchTierTitle = 2 // in its title (name and description), or in an index line linking it
	SearchTierName  = 3 // in its name: the key's words, its file name, the frontmatter name
)

// searchHalfLife is the age at which a result's freshness is half that of
// an entry written now.
const searchHalfLife = 30 * 24 * time.Hour

// SearchScore is the score of a result of tier written at updated: the
// tier, plus a freshness between 0 and 0.5 that halves at searchHalfLife
// and keeps falling (0.5 / (1 + age/searchHalfLife)). The stores return a
// query's results by tier, newest first in each, so the scores of a query
// never rise from one result to the next, and two results of the same
// tier and time score the same.
func SearchScore(tier int, updated, now time.Time) float64 {
	age := max(now.Sub(updated), 0)
	return float64(tier) + 0.5/(1+float64(age)/float64(searchHalfLife))
}
