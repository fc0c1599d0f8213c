package searchtext

import (
	"crypto/sha256"
	"encoding/hex"
	"path"

	"github.com/teammem/teammem/memcore/protocol"
)

// Doc is what a store indexes for one live entry: Title (the key's words,
// its frontmatter name and description) ranks above Body (the content's
// words).
type Doc struct {
	Title, Body string
}

// DocOf returns the indexed text of the entry key holding content: the
// words of each, then the parts of their camelCase words (see CamelParts).
func DocOf(key, content string) Doc {
	title := Normalize(key, 0)
	fm, _, _ := protocol.SplitFrontmatter(content)
	for _, s := range []string{fm.Name, fm.Description} {
		if n := Normalize(s, 4096); n != "" {
			title += " " + n
		}
	}
	title = withParts(title, CamelParts(key, 0), CamelParts(fm.Name, 4096), CamelParts(fm.Description, 4096))
	return Doc{Title: title, Body: WordsAndParts(content, MaxBodyBytes, MaxBodyBytes/4)}
}

// withParts appends the non-empty parts to words, separated by spaces.
func withParts(words string, parts ...string) string {
	for _, p := range parts {
		if p != "" {
			words += " " + p
		}
	}
	return words
}

// IsIndex reports whether key is a memory index (MEMORY.md in any
// directory), whose lines link the entries they describe.
func IsIndex(key string) bool {
	return path.Base(key) == "MEMORY.md"
}

// IndexLines returns, for each key an index (see IsIndex) links, the
// normalised text of the lines linking it, joined. The keys are those
// protocol.IndexLines reads, as every surface does: relative to the
// index's directory, outside fenced code, never a URL or a path leaving
// the repository; a line linking the index itself is not indexed under it.
func IndexLines(indexKey, content string) map[string]string {
	out := map[string]string{}
	for _, l := range protocol.IndexLines(path.Dir(indexKey), content) {
		for _, key := range l.Keys {
			if key == indexKey {
				continue
			}
			n := Normalize(l.Text, 4096)
			if prev := out[key]; prev != "" {
				n = prev + " " + n
			}
			out[key] = n
		}
	}
	return out
}

// Entry is the search text of one put: its Doc and, when it is an index,
// the lines linking each key (see IndexLines).
type Entry struct {
	Doc
	Links map[string]string
}

// EntryOf returns the search text of a put of key with content.
func EntryOf(key, content string) Entry {
	e := Entry{Doc: DocOf(key, content)}
	if IsIndex(key) {
		e.Links = IndexLines(key, content)
	}
	return e
}

// Scope returns the token naming repo in the index: a search of some
// repositories matches their tokens, so the filter is part of the index
// lookup. 64 bits of SHA-256 in hex, behind a letter so that no tokeniser
// splits it; the stores also compare the repository itself. No word of an
// entry or a query looks like a scope token (see scopeLike): a teammate
// cannot make another repository's candidates out of entries of their own.
func Scope(repo string) string {
	h := sha256.Sum256([]byte(repo))
	return "r" + hex.EncodeToString(h[:8])
}

// scopeLike reports whether w has the form of a scope token: "r" and 16
// hexadecimal digits, in either case. Such words are left out of the index and queries.
func scopeLike(w string) bool {
	if len(w) != 17 || lowerASCII(w[0]) != 'r' {
		return false
	}
	for i := 1; i < len(w); i++ {
		if c := lowerASCII(w[i]); !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
