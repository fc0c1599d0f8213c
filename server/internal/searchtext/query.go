package searchtext

import (
	"errors"
	"fmt"
	"slices"
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

// Term is one thing a match must contain: one of its forms, each a phrase
// (its words adjacent and in order); most terms are one word. The first
// form is the text typed as the index holds it (IndexText: plain words by
// their stems); the second, when it differs, is its words as typed, which
// is how an identifier's parts are indexed: "deploys" is the forms
// [deploy] and [deploys], matching "Deploys" and "deploying" in prose and
// the part of deploys.md; pool_max_conns has the one form [pool max conns].
type Term struct {
	Forms [][]string
}

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
		t, ok := termOf(chunk)
		if k := t.key(); ok && !seen[k] {
			seen[k] = true
			terms = append(terms, t)
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

// termOf returns the term of chunk, a phrase as typed; ok is false when
// chunk has no word.
func termOf(chunk string) (t Term, ok bool) {
	var indexed, typed []string
	eachToken(chunk, 0, func(raw string, _ int, folded string, plain bool) bool {
		w := normalized(raw, folded)
		typed = append(typed, w)
		if plain {
			w = Stem(w)
		}
		indexed = append(indexed, w)
		return true
	})
	if len(typed) == 0 {
		return Term{}, false
	}
	t.Forms = [][]string{indexed}
	if !slices.Equal(indexed, typed) {
		t.Forms = append(t.Forms, typed)
	}
	return t, true
}

// key is the term's forms, each a phrase, in one string.
func (t Term) key() string {
	forms := make([]string, len(t.Forms))
	for i, f := range t.Forms {
		forms[i] = strings.Join(f, " ")
	}
	return strings.Join(forms, "|")
}

// MaxLen returns the number of words of the term's longest form.
func (t Term) MaxLen() int {
	n := 0
	for _, f := range t.Forms {
		n = max(n, len(f))
	}
	return n
}

// Key returns a canonical form of terms, equal for queries that match the
// same entries.
func Key(terms []Term) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = t.key()
	}
	return strings.Join(parts, "\x00")
}
