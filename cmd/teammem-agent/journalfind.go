package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/teammem/teammem/client/agent"
)

// findJournal looks in stateDir for the journals of slug synced with the
// team folder dir, whatever their server (for status without --server). It
// returns the only one's path and server, ok false when there is none, and
// an error asking for --server when several servers have one.
func findJournal(stateDir, slug, dir string) (path, server string, ok bool, err error) {
	names, err := filepath.Glob(filepath.Join(stateDir, "journal-*.json"))
	if err != nil {
		return "", "", false, fmt.Errorf("find the journal: %w", err)
	}
	folder := agent.ResolveFolder(dir)
	var servers []string
	for _, name := range names {
		var j agent.Journal
		data, err := os.ReadFile(name)
		if err != nil || json.Unmarshal(data, &j) != nil || j.Repo != slug || j.Folder != folder {
			continue // unreadable or someone else's: not this folder's
		}
		path, server = name, j.Server
		servers = append(servers, j.Server)
	}
	switch len(servers) {
	case 0:
		return "", "", false, nil
	case 1:
		return path, server, true, nil
	}
	slices.Sort(servers)
	return "", "", false, errUsage("%s in %s was synced with several servers (%s): pass --server URL",
		slug, dir, strings.Join(servers, ", "))
}
