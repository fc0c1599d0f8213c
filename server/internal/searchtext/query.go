package searchtext

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of a query.
const (
	MaxQueryBytes = 1024 // the text as typed
	MaxTerms      = 16   // terms after parsing
)

// Query errors, each a sentence for the person who typed the query.
var (
	ErrEmpty   = errors.New("the query has no word to search for (letters or digits)")
	ErrTooLong = fmt.Errorf("the query is longer than %d bytes", MaxQueryBytes)
	ErrTooMany = fmt.Errorf("the query has more than %d terms", MaxTerms)
	ErrBadUTF8 = errors.New("the query is not valid UTF-8")
)

// Term is one thing a match must contain: its words, adjacent and in
// order (a phrase); most terms are one word.
type Term []string

// Parse turns what a person typed into the terms a match must all contain.
// Text between double quotes is one phrase; elsewhere each run of
// non-space characters is a term, a phrase of its parts when it has several
// (pool_max_conns, server/postgres/write.go). Nothing of the query is
// syntax for the store: operators (AND, OR, NOT, NEAR), `*`, `-`, `^`, `:`
// and parentheses are ordinary words or separators. An unmatched quote
// quotes the rest. Duplicate terms are kept once.
func Parse(q string) ([]Term, error) {
	if len(q) > MaxQueryBytes {
		return nil, ErrTooLong
	}
	if !utf8.ValidString(q) {
		return nil, ErrBadUTF8
	}
	var terms []Term
	seen := map[string]bool{}
	add := func(chunk string) {
		words := Words(chunk)
		if len(words) == 0 {
			return
		}
		k := strings.Join(words, " ")
		if !seen[k] {
			seen[k] = true
			terms = append(terms, Term(words))
		}
	}
	for i, part := range strings.Split(q, `"`) {
		if i%2 == 1 {
			add(part)
			continue
		}
		for _, f := range strings.Fields(part) {
			add(f)
		}
	}
	switch {
	case len(terms) == 0:
		return nil, ErrEmpty
	case len(terms) > MaxTerms:
		return nil, ErrTooMany
	}
	return terms, nil
}

// Key returns a canonical form of terms, equal for queries that match the
// same entries.
func Key(terms []Term) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = strings.Join(t, " ")
	}
	return strings.Join(parts, "\x00")
}
