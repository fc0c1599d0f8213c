package postgres

import (
	"slices"
	"strconv"
	"strings"
)

// The search vectors are built here, in Go, in the text form of a tsvector
// (cast by the statements: $n::tsvector), from the words searchtext
// normalised; the queries are tsquery text of the same words. Postgres's
// parser (to_tsvector) is not used: it cost about four times the cast's
// time on every put, and this way no word of ours can be split or dropped
// by a parser that is not the one the queries are written with.

// Limits of a tsvector: positions above maxPosition are stored as it, and
// a lexeme keeps at most maxPositions of them (as to_tsvector does).
const (
	maxPosition  = 1<<14 - 1
	maxPositions = 256
)

// vectorPart is text (words separated by single spaces) with the weight of
// its positions: 'A', 'B', 'C' or 0 (D, the default).
type vectorPart struct {
	text   string
	weight byte
}

// tsvectorText returns the text form of the tsvector of parts, their words
// numbered from position from on, in order across the parts. Lexemes come
// in the order of their first position, each with its positions.
func tsvectorText(from int, parts ...vectorPart) string {
	n := 0
	for _, part := range parts {
		n += strings.Count(part.text, " ") + 1
	}
	type occurrence struct {
		lexeme int32
		pos    int32
		weight byte
	}
	words := make([]string, 0, n/2)    // the lexemes, by first position
	ids := make(map[string]int32, n/2) // lexeme → its index in words
	occ := make([]occurrence, 0, n)    // every position, in order
	p := from
	for _, part := range parts {
		for rest := part.text; rest != ""; {
			w, tail, _ := strings.Cut(rest, " ") // searchtext separates words by one space
			rest = tail
			if w == "" {
				continue
			}
			id, ok := ids[w]
			if !ok {
				id = int32(len(words))
				ids[w] = id
				words = append(words, w)
			}
			if p <= maxPosition {
				occ = append(occ, occurrence{id, int32(p), part.weight})
			}
			p++
		}
	}
	// Group the positions by lexeme (a counting sort keeps their order).
	start := make([]int32, len(words)+1)
	for _, o := range occ {
		start[o.lexeme+1]++
	}
	for i := range words {
		start[i+1] += start[i]
	}
	byLexeme := make([]occurrence, len(occ))
	next := slices.Clone(start[:len(words)])
	for _, o := range occ {
		byLexeme[next[o.lexeme]] = o
		next[o.lexeme]++
	}
	var b strings.Builder
	b.Grow(len(occ)*6 + n*8)
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		quoteLexeme(&b, w)
		ps := byLexeme[start[i]:start[i+1]]
		if len(ps) > maxPositions {
			ps = ps[:maxPositions]
		}
		var num [12]byte
		for j, o := range ps {
			if j == 0 {
				b.WriteByte(':')
			} else {
				b.WriteByte(',')
			}
			b.Write(strconv.AppendInt(num[:0], int64(o.pos), 10))
			if o.weight != 0 {
				b.WriteByte(o.weight)
			}
		}
	}
	return b.String()
}

// quoteLexeme writes word as a quoted lexeme of tsvector or tsquery text.
// The normalised words hold letters and digits only; a quote or a
// backslash would still be escaped.
func quoteLexeme(b *strings.Builder, word string) {
	b.WriteByte('\'')
	if !strings.ContainsAny(word, `'\`) {
		b.WriteString(word)
	} else {
		for _, r := range word {
			if r == '\'' || r == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
}
