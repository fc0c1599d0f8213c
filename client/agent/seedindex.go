package agent

import (
	"path"
	"slices"
	"strings"

	"github.com/teammem/teammem/internal/linediff"
	"github.com/teammem/teammem/memcore/protocol"
)

// IndexSeed is what SeedIndex did to one index.
type IndexSeed struct {
	// Content is the index to push.
	Content string
	// Added and Removed count the lines the folder added to the server's
	// index and the lines of the server's index it removed.
	Added, Removed int
}

// SeedIndex merges the folder's version of an index (key, e.g. MEMORY.md)
// into the server's by line, as a teammate's agent would: every line of
// the server's index is kept, in its order, and the folder's lines the
// server lacks are added after them, in the folder's order. Only with
// prune does it remove anything, and only what the folder owns: a line of
// the server's index that the folder's index lacks and whose links all
// name keys owned reports as the folder's (the keys the folder holds, and
// the keys the seed prunes). Lines without links (headings, prose) and
// lines inside fenced code are never removed. SeedIndex is pure.
func SeedIndex(key, server, folder string, prune bool, owned func(key string) bool) IndexSeed {
	have := map[string]bool{}
	for _, l := range linediff.Split(folder) {
		have[linediff.NormalLine(l)] = true
	}
	var out []string
	var r IndexSeed
	inServer := map[string]bool{}
	for _, il := range protocol.IndexLines(path.Dir(key), server) {
		line := linediff.NormalLine(il.Text)
		inServer[line] = true
		if prune && !have[line] && ownedLine(il.Keys, owned) {
			r.Removed++
			continue
		}
		out = append(out, line)
	}
	for _, l := range linediff.Split(folder) {
		line := linediff.NormalLine(l)
		if !inServer[line] && strings.TrimSpace(line) != "" {
			out = append(out, line)
			inServer[line] = true
			r.Added++
		}
	}
	r.Content = linediff.JoinLines(out)
	return r
}

// ownedLine reports whether an index line links at least one key and
// every key it links is owned.
func ownedLine(keys []string, owned func(string) bool) bool {
	return len(keys) > 0 && !slices.ContainsFunc(keys, func(k string) bool { return !owned(k) })
}
