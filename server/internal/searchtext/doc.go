package searchtext

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// Doc is what a store indexes for one live entry, in three parts ranked
// apart: Name (the key's words, its file name read as text, the
// frontmatter name), About (the frontmatter description) and Body (the
// content past the frontmatter, and the frontmatter's other values). Each
// holds the words as IndexText gives them, then the parts of its camelCase
// words (see CamelParts).
type Doc struct {
	Name, About, Body string
}

// Title returns the words of Name and About: what ranks above the body.
func (d Doc) Title() string {
	if d.About == "" {
		return d.Name
	}
	return d.Name + " " + d.About
}

// DocOf returns the indexed text of the entry key holding content.
func DocOf(key, content string) Doc {
	l := layoutOf(content)
	base := path.Base(key)
	base = strings.TrimSuffix(base, path.Ext(base))
	name := withParts(IndexText(key, 0), IndexText(base, 0), IndexText(l.fm.Name, 4096),
		CamelParts(key, 0), CamelParts(l.fm.Name, 4096))
	about := withParts(IndexText(l.fm.Description, 4096), CamelParts(l.fm.Description, 4096))
	body := WordsAndParts(content[l.body:], MaxBodyBytes, MaxBodyBytes/4)
	if l.other != "" {
		body = withParts(IndexText(l.other, 4096), body)
	}
	return Doc{Name: name, About: about, Body: body}
}

// withParts returns the non-empty parts, separated by spaces.
func withParts(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
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
			n := IndexText(l.Text, 4096)
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
