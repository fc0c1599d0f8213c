package searchtext

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SnippetRunes is about how long a snippet is, in code points.
const SnippetRunes = 200

// Snippet is a plain-text excerpt of an entry around its first match,
// with each match of a query term marked by its [start, end) offsets in
// Unicode code points of Text. Whitespace runs and control characters
// become one space; "…" marks a cut at either end.
type Snippet struct {
	Text    string
	Matches [][2]int
}

type span struct{ start, end int } // byte offsets in the text

// SnippetOf returns the excerpt of content showing terms, taken from the
// body (the text after the frontmatter, see layoutOf) around its first
// match, else from the frontmatter description around its first match,
// else from the top of the body (the description when the body is empty).
// It never shows the frontmatter itself.
func SnippetOf(content string, terms []Term) Snippet {
	return snippetOf(content, terms, snippetIn)
}

// snippetOf is SnippetOf with in, the excerpt of a text around its first
// match.
func snippetOf(content string, terms []Term, in func(string, []Term) (Snippet, bool)) Snippet {
	l := layoutOf(content)
	body := content[l.shown:]
	if s, ok := in(body, terms); ok {
		return s
	}
	if d := l.fm.Description; d != "" {
		if s, ok := in(d, terms); ok {
			return s
		}
		if strings.TrimSpace(body) == "" {
			return excerpt(d, 0, nil)
		}
	}
	return excerpt(body, 0, nil)
}

// snippetIn returns the excerpt of text around its first match of terms;
// ok is false when text holds none. It reads the text's words only as far
// as the excerpt can reach: SnippetRunes code points of words after the
// first match (a lower bound of the excerpt's length from there), and then
// as many words as the longest term has, for a match open at the excerpt's
// end. Search results are 2 KB notes whose first match is mostly near the
// top, so this is a fraction of the note.
func snippetIn(text string, terms []Term) (Snippet, bool) {
	longest := 0
	for _, t := range terms {
		longest = max(longest, t.MaxLen())
	}
	words := make([]word, 0, 64)
	first, after, extra := -1, 0, 0
	eachToken(text, matchFrom(text, terms), func(raw string, s int, folded string, plain bool) bool {
		e := s + len(raw)
		words = append(words, word{normalized(raw, folded), s, e, plain})
		if first < 0 {
			first = firstEnding(words, terms)
			return true
		}
		if s >= first {
			after += utf8.RuneCountInString(text[s:e])
		}
		if after > SnippetRunes {
			extra++
		}
		return extra <= longest
	})
	return snippetOfWords(text, words, terms)
}

// snippetOfWords is the excerpt of text around its first match of terms
// among words, the text's words as far as they were read; ok is false
// when none matches.
func snippetOfWords(text string, words []word, terms []Term) (Snippet, bool) {
	hits := matches(words, terms)
	if len(hits) == 0 {
		return Snippet{}, false
	}
	return excerpt(text, backUp(text, hits[0].start, SnippetRunes/4), hits), true
}

// matchFrom returns a byte offset of content before which no term can
// start a match, between two words: the first place where the anchor (see
// anchor) of a form's first word starts a word in any ASCII case, or the first
// byte past ASCII (where a word may fold into any other), backed up to the
// start of the word it falls in. The words from there on are those of the
// whole text from there on, and reading them starts where a match could (a
// result's first match is often far into it) instead of tokenising every
// word before.
func matchFrom(content string, terms []Term) int {
	end := len(content)
	for _, t := range terms {
		for _, f := range t.Forms {
			if len(f) == 0 {
				continue
			}
			if i := indexFoldASCII(content[:end], anchor(f[0])); i >= 0 {
				end = i
			}
		}
	}
	for i := 0; i < end; i++ {
		if content[i] >= utf8.RuneSelf {
			end = i
		}
	}
	for end > 0 && asciiWord[content[end-1]] {
		end--
	}
	return end
}

// indexFoldASCII returns the first offset of s where w (lower case) starts
// a word in any ASCII case (after no ASCII letter or digit), or -1. It
// looks for w's first byte in either case with strings.IndexByte,
// remembering the next of each.
func indexFoldASCII(s, w string) int {
	if w == "" {
		return 0
	}
	lo, up := w[0], w[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	nextLo, nextUp := strings.IndexByte(s, lo), -1
	if up != lo {
		nextUp = strings.IndexByte(s, up)
	}
	for nextLo >= 0 || nextUp >= 0 {
		i := nextLo
		if i < 0 || (nextUp >= 0 && nextUp < i) {
			i = nextUp
		}
		if i+len(w) > len(s) {
			return -1
		}
		if (i == 0 || !asciiWord[s[i-1]&0x7f] || s[i-1] >= utf8.RuneSelf) && foldEqualASCII(s[i+1:i+len(w)], w[1:]) {
			return i
		}
		if i == nextLo {
			if nextLo = strings.IndexByte(s[i+1:], lo); nextLo >= 0 {
				nextLo += i + 1
			}
		} else if nextUp = strings.IndexByte(s[i+1:], up); nextUp >= 0 {
			nextUp += i + 1
		}
	}
	return -1
}

// foldEqualASCII reports whether s is w (lower case) in some ASCII case.
func foldEqualASCII(s, w string) bool {
	for j := range len(w) {
		if lowerASCII(s[j]) != w[j] {
			return false
		}
	}
	return true
}

type word struct {
	w          string // normalised, as typed
	start, end int    // byte offsets in the text
	plain      bool   // see eachToken
}

// matchesWord reports whether w is the word fw of a term's form as the
// index holds w: a plain word by its stem (looked up only for a word that
// starts as the stem's words do), another as it is.
func (w word) matchesWord(fw string) bool {
	if !w.plain {
		return w.w == fw
	}
	return strings.HasPrefix(w.w, anchor(fw)) && Stem(w.w) == fw
}

// firstEnding returns the byte offset where a match of a term ending at
// the last of words starts, or -1 when none does.
func firstEnding(words []word, terms []Term) int {
	for _, t := range terms {
		for _, f := range t.Forms {
			if i := len(words) - len(f); formAt(words, i, f) {
				return words[i].start
			}
		}
	}
	return -1
}

// formAt reports whether the words of the form f match words[i:i+len(f)].
func formAt(words []word, i int, f []string) bool {
	return i >= 0 && i+len(f) <= len(words) &&
		slices.EqualFunc(words[i:i+len(f)], f, word.matchesWord)
}

// matches returns the matches of terms in words, in order: at each word,
// the first term (in the query's order) one of whose forms starts there.
func matches(words []word, terms []Term) []span {
	var hits []span
	for i := range words {
	terms:
		for _, t := range terms {
			for _, f := range t.Forms {
				if formAt(words, i, f) {
					hits = append(hits, span{words[i].start, words[i+len(f)-1].end})
					break terms
				}
			}
		}
	}
	return hits
}

// backUp returns the offset about n code points before at, at a word's
// start.
func backUp(s string, at, n int) int {
	i := at
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	for i > 0 && i < at {
		r, _ := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// excerpt builds the snippet of content from byte offset from, about
// SnippetRunes long (longer by the rest of a match open at that length),
// marking the hits inside it.
func excerpt(content string, from int, hits []span) Snippet {
	var b strings.Builder
	runes := 0
	if from > 0 {
		b.WriteString("…")
		runes++
	}
	var matches [][2]int
	h := 0
	for h < len(hits) && hits[h].start < from {
		h++
	}
	open := -1 // code point offset where the current hit began
	space := false
	i := from
	for i < len(content) {
		// A match starting inside the excerpt is shown whole; one starting
		// past its length is not begun (matches one after the other would
		// otherwise stretch it to the end of the text).
		if h < len(hits) && i == hits[h].start && runes < SnippetRunes {
			if space {
				b.WriteByte(' ')
				runes++
				space = false
			}
			open = runes
		}
		r, size := utf8.DecodeRuneInString(content[i:])
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError {
			space = b.Len() > 0 && open < 0
			if open >= 0 { // inside a phrase: keep its separators visible
				b.WriteByte(' ')
				runes++
			}
		} else {
			if runes >= SnippetRunes && open < 0 {
				break
			}
			if space {
				b.WriteByte(' ')
				runes++
				space = false
			}
			b.WriteRune(r)
			runes++
		}
		i += size
		if h < len(hits) && i == hits[h].end && open >= 0 {
			matches = append(matches, [2]int{open, runes})
			open = -1
			h++
			for h < len(hits) && hits[h].start < i {
				h++
			}
		}
	}
	if i < len(content) {
		b.WriteString("…")
	}
	return Snippet{Text: b.String(), Matches: matches}
}
