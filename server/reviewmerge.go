package server

import (
	"context"
	"errors"
	"path"
	"strings"

	"github.com/teammem/teammem/internal/linediff"
	"github.com/teammem/teammem/memcore/protocol"
)

// isIndexKey reports whether key names an index (MEMORY.md at any depth):
// a list of independent lines, merged by line union.
func isIndexKey(key string) bool { return path.Base(key) == protocol.IndexName }

// liveText is a key's current text, or absent.
type liveText struct {
	text   string
	absent bool
}

// currentText reads key's live text (absent when it was deleted or never
// existed).
func (s *Service) currentText(ctx context.Context, repo, key string) (liveText, error) {
	rv, err := s.store.Revision(ctx, repo, key, 0)
	if errors.Is(err, ErrNotFound) || err == nil && rv.Op == OpDelete {
		return liveText{absent: true}, nil
	}
	if err != nil {
		return liveText{}, err
	}
	return liveText{text: rv.Content}, nil
}

// target is what an approval writes for one key.
type target int

const (
	targetNothing  target = iota // the key already holds what was proposed
	targetPut                    // put merged
	targetDelete                 // delete the key
	targetConflict               // it moved in a way that does not merge
)

// mergeChange decides what approving c writes over the key's current text
// cur: the proposal itself when the key still holds its base; a merge as
// the agent merges (three-way, or line union for an index) when it moved;
// a conflict when a moved key would be deleted, or appeared or went away
// meanwhile.
func mergeChange(c ProposedChange, cur liveText) (target, string) {
	baseHeld := cur.absent == c.BaseAbsent && cur.text == c.Base
	switch {
	case c.Delete && cur.absent:
		return targetNothing, ""
	case c.Delete && baseHeld:
		return targetDelete, ""
	case c.Delete:
		return targetConflict, ""
	case !cur.absent && cur.text == c.Content:
		return targetNothing, ""
	case baseHeld:
		return targetPut, c.Content
	case cur.absent || c.BaseAbsent:
		return targetConflict, ""
	case isIndexKey(c.Key):
		return targetPut, linediff.MergeLines(c.Base, c.Content, cur.text)
	}
	if merged, ok := linediff.Merge3(c.Base, c.Content, cur.text); ok {
		return targetPut, merged
	}
	return targetConflict, ""
}

// indexUnion returns an index's text with the lines next adds to cur and
// none of the lines it removes, and whether next removes any.
func indexUnion(cur, next string) (string, bool) {
	base := linediff.Split(cur)
	hunks := linediff.Hunks(base, linediff.Split(next))
	removes := false
	for i, h := range hunks {
		if h.End > h.Start {
			removes = true
			lines := append([]string(nil), base[h.Start:h.End]...)
			if last := len(lines) - 1; len(h.Lines) > 0 && !strings.HasSuffix(lines[last], "\n") {
				lines[last] += "\n" // the removed last line, kept, is followed by the added ones
			}
			hunks[i].Lines = append(lines, h.Lines...)
		}
	}
	if !removes {
		return next, false
	}
	return linediff.Apply(base, hunks), true
}
