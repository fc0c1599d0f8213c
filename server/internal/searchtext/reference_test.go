package searchtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The tokeniser as first written, a rune at a time with a closure per word:
// the oracle of the byte-at-a-time one. Both stores index its output, so the
// faster scan must give the same words byte for byte, or an index built
// before it would no longer match the queries made after it.

func refEachWord(text string, fn func(word string, start, end int) bool) {
	start, ascii := -1, true
	emit := func(w string, s, end int) bool {
		if w == "" || len(w) > MaxWordBytes || scopeLike(w) {
			return true
		}
		return fn(w, s, end)
	}
	flush := func(end int) bool {
		if start < 0 {
			return true
		}
		s := start
		start = -1
		if !ascii {
			ascii = true
			return emit(fold(text[s:end]), s, end)
		}
		return emit(strings.ToLower(text[s:end]), s, end)
	}
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			if r >= utf8.RuneSelf {
				ascii = false
			}
			continue
		}
		if !flush(i) {
			return
		}
	}
	flush(len(text))
}

func refWordsAndParts(text string, limit, partsLimit int) string {
	var words, parts strings.Builder
	refEachWord(text, func(w string, s, end int) bool {
		folded := w // isPlain's folded: the word of a raw word that is not ASCII
		if isASCII(text[s:end]) {
			folded = ""
		}
		if isPlain(text, s, end, text[s:end], folded) {
			w = Stem(w)
		}
		writeWord(&words, w)
		if parts.Len() < partsLimit {
			refWriteCamelParts(&parts, text[s:end])
		}
		return limit <= 0 || words.Len() < limit
	})
	if parts.Len() == 0 {
		return words.String()
	}
	return words.String() + " " + parts.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func refWriteCamelParts(b *strings.Builder, word string) {
	if !isASCII(word) {
		return
	}
	from := 0
	for i := 1; i < len(word); i++ {
		if camelBoundary(word, i, len(word)) {
			writeWord(b, strings.ToLower(word[from:i]))
			from = i
		}
	}
	if from > 0 {
		writeWord(b, strings.ToLower(word[from:]))
	}
}

func writeWord(b *strings.Builder, w string) {
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(w)
}

type refWord struct {
	w          string
	start, end int
}

func collect(each func(string, func(string, int, int) bool), text string) []refWord {
	var out []refWord
	each(text, func(w string, s, e int) bool {
		out = append(out, refWord{w, s, e})
		return true
	})
	return out
}

// checkAsReference fails t when the tokeniser and its reference differ on
// text.
func checkAsReference(t *testing.T, text string) {
	t.Helper()
	got, want := collect(eachWord, text), collect(refEachWord, text)
	if len(got) != len(want) {
		t.Fatalf("%q: %d words %+v, reference %d %+v", text, len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%q: word %d is %+v, reference %+v", text, i, got[i], want[i])
		}
	}
	for _, limit := range []int{0, 1, 7, 64} {
		if g, w := WordsAndParts(text, limit, limit/2), refWordsAndParts(text, limit, limit/2); g != w {
			t.Fatalf("%q: WordsAndParts(%d) = %q, reference %q", text, limit, g, w)
		}
		var n strings.Builder
		refEachWord(text, func(w string, _, _ int) bool {
			writeWord(&n, w)
			return limit <= 0 || n.Len() < limit
		})
		if g := Normalize(text, limit); g != n.String() {
			t.Fatalf("%q: Normalize(%d) = %q, reference %q", text, limit, g, n.String())
		}
		var c strings.Builder
		refEachWord(text, func(_ string, s, e int) bool {
			refWriteCamelParts(&c, text[s:e])
			return limit <= 0 || c.Len() < limit
		})
		if g := CamelParts(text, limit); g != c.String() {
			t.Fatalf("%q: CamelParts(%d) = %q, reference %q", text, limit, g, c.String())
		}
	}
}

var referenceSeeds = []string{
	"", " ", "a", "A", "Café au LAIT", "pool_max_conns=8", "server/postgres/write.go",
	"RetryPolicy HTTPClient v2Config MySQL iOS ABC aB", "Ünïcödé naïve résumé",
	"决策记录 décision\x00\x1f x", "ﬁle ² ½ Ⅻ", "bad \xff\xfe utf8 \xc3", "é\u0301e\u0301X",
	"a" + strings.Repeat("b", MaxWordBytes) + " c" + strings.Repeat("D", MaxWordBytes-1),
	"x " + Scope("acme/web") + " y R0123456789ABCDEF r0123456789abcdef0 r0123456789abcdeg",
	strings.ToUpper(Scope("acme/web")), "ÀBC" + strings.Repeat("é", 40), "\u200d\u0300 \u0300a",
	benchNote(),
}

func TestTokeniserAsReference(t *testing.T) {
	for _, s := range referenceSeeds {
		checkAsReference(t, s)
	}
}

func FuzzTokeniserAsReference(f *testing.F) {
	for _, s := range referenceSeeds {
		f.Add(s)
	}
	f.Fuzz(checkAsReference)
}
