package httpapi

import (
	"strings"

	"github.com/teammem/teammem/server"
)

// treeRow is one line of a repository's tree: a folder, or an entry with
// its size, last author and time.
type treeRow struct {
	Depth  int
	Name   string // the last path segment (a folder's name ends in "/")
	Folder bool
	Entry  server.Entry
	Author string
}

// entryTree lays out live entries (sorted by key) as a tree. Byte order
// keeps every folder's keys together, so a folder line is due whenever a
// key's folders differ from the previous key's.
func entryTree(live []server.Entry, authors map[string]string) []treeRow {
	rows := make([]treeRow, 0, len(live)+len(live)/4)
	var prev []string
	for _, e := range live {
		segs := strings.Split(e.Key, "/")
		dirs := segs[:len(segs)-1]
		common := 0
		for common < len(dirs) && common < len(prev) && dirs[common] == prev[common] {
			common++
		}
		for d := common; d < len(dirs); d++ {
			rows = append(rows, treeRow{Depth: d, Name: dirs[d] + "/", Folder: true})
		}
		rows = append(rows, treeRow{Depth: len(dirs), Name: segs[len(segs)-1], Entry: e, Author: authors[e.Key]})
		prev = dirs
	}
	return rows
}
