// Package localsearch searches a memory folder on disk: what the agent's
// `search` and its MCP tool search_memories answer from when the server
// cannot be reached. It is a small matcher, not the server's search (which
// the client may not import): a file matches when each word of the query
// starts a word of the file, case ignored, a query word's plural "s" too
// ("deploys" finds "deploy" and "deploying"). The files are those a sync
// would push: valid keys (protocol.ValidateKey), never a hidden file or
// folder.
package localsearch

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/teammem/teammem/memcore/protocol"
)

// MaxFileBytes bounds the files read: a larger one is skipped.
const MaxFileBytes = 4 << 20

// Hit is one file holding every word of a query.
type Hit struct {
	Key     string // slash-separated, relative to the folder
	Snippet string // the first line holding a word of the query, past the frontmatter; else the description or the first line
}

// Search returns the files below dir holding every word of query, at most
// limit: first those whose key or frontmatter name holds every word, then
// the others, each by key. The folders in exclude (slash paths relative to
// dir) are not searched. A query without a word finds nothing; dir missing
// is an error.
func Search(dir, query string, limit int, exclude ...string) ([]Hit, error) {
	words := queryWords(query)
	if len(words) == 0 {
		return nil, nil
	}
	var found []ranked
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // an unreadable folder or file below is skipped
		}
		rel, _ := filepath.Rel(dir, p)
		key := filepath.ToSlash(rel)
		if d.IsDir() {
			if p != dir && (protocol.HiddenFolder(key) || slices.Contains(exclude, key)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || protocol.HiddenFile(key) || protocol.ValidateKey(key) != nil {
			return nil
		}
		if r, ok := match(p, key, words); ok {
			found = append(found, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(found, func(a, b ranked) int {
		return cmp.Or(-cmp.Compare(a.named, b.named), strings.Compare(a.Key, b.Key))
	})
	out := make([]Hit, 0, min(limit, len(found)))
	for _, r := range found[:min(limit, len(found))] {
		out = append(out, r.Hit)
	}
	return out, nil
}

// Note is the sentence that tells a search's reader it searched the local
// folder dir (a "team folder", say), the server being unreachable (cause).
func Note(kind, dir string, cause error) string {
	return fmt.Sprintf("server unreachable: searched the local %s %s instead (%v)", kind, dir, cause)
}

// ranked is a hit and whether its key or name holds every word.
type ranked struct {
	Hit
	named int
}

// match reads the file at p (key) and returns its hit when it holds every
// word.
func match(p, key string, words []string) (ranked, bool) {
	info, err := os.Stat(p)
	if err != nil || info.Size() > MaxFileBytes {
		return ranked{}, false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return ranked{}, false
	}
	content := string(data)
	fm, body, _ := protocol.SplitFrontmatter(content)
	name := key + " " + fm.Name
	if !holdsAll(name+" "+fm.Description+" "+body, words) {
		return ranked{}, false
	}
	r := ranked{Hit: Hit{Key: key, Snippet: snippet(body, fm.Description, words)}}
	if holdsAll(name, words) {
		r.named = 1
	}
	return r, true
}

// queryWords returns the words of query, lower case, each without a plural
// "s" when longer than three letters.
func queryWords(query string) []string {
	var out []string
	for _, w := range wordsOf(query) {
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// wordsOf returns the runs of letters and digits of s, lower case.
func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// holdsAll reports whether each of words starts a word of text.
func holdsAll(text string, words []string) bool {
	have := wordsOf(text)
	for _, w := range words {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.HasPrefix(h, w) }) {
			return false
		}
	}
	return true
}

// snippetRunes bounds a snippet's length, in code points.
const snippetRunes = 200

// snippet returns the first line of body holding a word of the query, else
// the description when it holds one or the body is blank, else the first
// line of the body that is not blank.
func snippet(body, description string, words []string) string {
	first := ""
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if first == "" {
			first = line
		}
		if holdsAny(line, words) {
			return cut(line)
		}
	}
	if description != "" && (first == "" || holdsAny(description, words)) {
		return cut(description)
	}
	return cut(first)
}

func holdsAny(text string, words []string) bool {
	for _, w := range words {
		if holdsAll(text, []string{w}) {
			return true
		}
	}
	return false
}

// cut returns s, cut to snippetRunes code points with "…".
func cut(s string) string {
	r := []rune(s)
	if len(r) <= snippetRunes {
		return s
	}
	return string(r[:snippetRunes]) + "…"
}
