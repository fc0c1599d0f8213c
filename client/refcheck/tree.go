package refcheck

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/teammem/teammem/memcore/refs"
)

// MaxBlobBytes is the largest file whose lines and words are checked; a
// reference into a larger file is checked for its path only.
const MaxBlobBytes = 16 << 20

// treeView checks references against one tree.
type treeView struct {
	repo    *git.Repository
	tree    *object.Tree
	facts   map[plumbing.Hash]*blobFacts
	content map[plumbing.Hash][]byte // read during this check only
}

// blobFacts is what is known of one blob (blobs are content-addressed, so
// the facts hold at every HEAD).
type blobFacts struct {
	lines   int // -1: not counted yet
	tooBig  bool
	symbols map[string]bool
}

// checkAll checks the references of one topic.
func (t *treeView) checkAll(key string, rs []refs.Ref) []Finding {
	var out []Finding
	for _, r := range rs {
		if reason, msg := t.check(r); reason != "" {
			out = append(out, Finding{Key: key, Ref: r, Reason: reason, Message: msg})
		}
	}
	return out
}

// check checks one reference; reason is "" when it holds.
func (t *treeView) check(r refs.Ref) (reason, msg string) {
	e, err := t.tree.FindEntry(r.Path)
	if err != nil {
		return ReasonMissing, r.Path + " is not in HEAD"
	}
	switch {
	case e.Mode == filemode.Dir:
		if r.Start != 0 || r.Symbol != "" {
			return ReasonNotFile, r.Path + " is a folder in HEAD, not a file"
		}
		return "", ""
	case r.Dir:
		return ReasonNotFile, r.Path + " is a file in HEAD, not a folder"
	case e.Mode == filemode.Submodule || r.Start == 0 && r.Symbol == "":
		return "", ""
	}
	f, err := t.blob(e.Hash)
	if err != nil || f.tooBig {
		return "", "" // unreadable or too large: the path exists, which is all we can say
	}
	if r.Start != 0 && r.End > f.lines {
		return ReasonPastEnd, fmt.Sprintf("%s has %d lines; the reference names lines %d-%d", r.Path, f.lines, r.Start, r.End)
	}
	if r.Symbol != "" && !t.hasSymbol(e.Hash, f, r.Symbol) {
		return ReasonNoSymbol, fmt.Sprintf("%s does not contain %s", r.Path, r.Symbol)
	}
	return "", ""
}

// blob returns the facts of a blob, reading it when they are not known.
func (t *treeView) blob(h plumbing.Hash) (*blobFacts, error) {
	if f, ok := t.facts[h]; ok {
		return f, nil
	}
	data, tooBig, err := t.read(h)
	if err != nil {
		return nil, err
	}
	f := &blobFacts{lines: countLines(data), tooBig: tooBig, symbols: map[string]bool{}}
	t.facts[h] = f
	return f, nil
}

// read reads a blob (nil and tooBig when it is over MaxBlobBytes), once per
// check.
func (t *treeView) read(h plumbing.Hash) (data []byte, tooBig bool, err error) {
	if data, ok := t.content[h]; ok {
		return data, false, nil
	}
	b, err := t.repo.BlobObject(h)
	if err != nil {
		return nil, false, err
	}
	if b.Size > MaxBlobBytes {
		return nil, true, nil
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, false, err
	}
	defer rd.Close()
	if data, err = io.ReadAll(rd); err != nil {
		return nil, false, err
	}
	if t.content == nil {
		t.content = map[plumbing.Hash][]byte{}
	}
	t.content[h] = data
	return data, false, nil
}

// hasSymbol reports whether the blob holds every dotted part of symbol as
// a whole word.
func (t *treeView) hasSymbol(h plumbing.Hash, f *blobFacts, symbol string) bool {
	if v, ok := f.symbols[symbol]; ok {
		return v
	}
	data, _, err := t.read(h)
	if err != nil {
		return true // cannot tell: not stale
	}
	found := true
	for _, part := range strings.Split(symbol, ".") {
		found = found && hasWord(data, part)
	}
	f.symbols[symbol] = found
	return found
}

// hasWord reports whether w occurs in data with no identifier character
// (letter, digit, underscore) on either side.
func hasWord(data []byte, w string) bool {
	word := []byte(w)
	for off := 0; ; {
		i := bytes.Index(data[off:], word)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(word)
		if (i == 0 || !isIdent(data[i-1])) && (end == len(data) || !isIdent(data[end])) {
			return true
		}
		off = i + 1
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// countLines counts the lines of data; a last line without a line feed
// counts.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}
