// Package blame tells, for every line of a memory entry, the revision that
// introduced it and that revision's provenance. It walks the key's
// revisions oldest first (server.Service.KeyRevisions) and diffs each with
// the next (internal/linediff), carrying every line's origin across: a
// line a revision keeps keeps its origin, a line it adds (a moved line
// too: it is removed and added) takes that revision's. A delete empties
// the text, so a key deleted and created again starts afresh. Each step
// costs one diff of two consecutive texts, so a blame is linear in the
// number of revisions for texts of bounded size and churn.
package blame

import (
	"context"
	"slices"
	"strings"

	"github.com/teammem/teammem/internal/linediff"
	"github.com/teammem/teammem/server"
)

// Line is one line of a blamed text: its text without the line break and
// the version of the revision that introduced it.
type Line struct {
	Text    string
	Version int64
}

// Blame is a key's text at one revision, line by line.
type Blame struct {
	Revision server.Revision   // the revision blamed, without its content
	Lines    []Line            // none for a delete
	Origins  []server.Revision // the revisions that introduced Lines, oldest first, without content
}

// Of blames key in repo for p at the newest revision at or before version
// (0: the newest of all). Errors: the Service's (ErrNotFound when the key
// has no revision up to version, ErrForbidden, ErrInvalid).
func Of(ctx context.Context, svc *server.Service, p server.Principal, repo, key string, version int64) (Blame, error) {
	var b Builder
	if err := svc.KeyRevisions(ctx, p, repo, key, version, b.Add); err != nil {
		return Blame{}, err
	}
	return b.Blame(), nil
}

// Builder builds a Blame from a key's revisions given oldest first. The
// zero value is ready; it keeps the current text, each line's origin and
// the metadata of the revisions they come from.
type Builder struct {
	lines  []string
	origin []int64
	last   server.Revision
	revs   map[int64]server.Revision
}

// Add takes the next revision (it never fails; its error result fits
// Service.KeyRevisions).
func (b *Builder) Add(r server.Revision) error {
	var next []string
	if r.Op != server.OpDelete {
		next = linediff.Split(r.Content)
	}
	origin := make([]int64, 0, len(next))
	pos := 0
	for _, h := range linediff.Hunks(b.lines, next) {
		origin = append(origin, b.origin[pos:h.Start]...)
		for range h.Lines {
			origin = append(origin, r.Version)
		}
		pos = h.End
	}
	b.lines, b.origin = next, append(origin, b.origin[pos:]...)
	r.Content = ""
	if b.revs == nil {
		b.revs = map[int64]server.Revision{}
	}
	b.revs[r.Version], b.last = r, r
	if len(b.revs) > 2*len(b.lines)+64 {
		b.prune()
	}
	return nil
}

// prune forgets the revisions no line comes from any more (but the last),
// so that what a Builder keeps is bounded by the text, not the history.
func (b *Builder) prune() {
	kept := make(map[int64]server.Revision, len(b.lines)+1)
	for _, v := range b.origin {
		kept[v] = b.revs[v]
	}
	kept[b.last.Version] = b.last
	b.revs = kept
}

// Blame returns the blame of the last revision added.
func (b *Builder) Blame() Blame {
	out := Blame{Revision: b.last, Lines: make([]Line, len(b.lines))}
	var versions []int64
	for i, l := range b.lines {
		out.Lines[i] = Line{Text: strings.TrimSuffix(l, "\n"), Version: b.origin[i]}
		versions = append(versions, b.origin[i])
	}
	slices.Sort(versions)
	for _, v := range slices.Compact(versions) {
		out.Origins = append(out.Origins, b.revs[v])
	}
	return out
}
