package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrSeveralServers is wrapped by FindJournal's error when the folder was
// synced with more than one server, so the server must be named.
var ErrSeveralServers = errors.New("synced with several servers")

// FindJournal looks in stateDir for the journals of repo synced with the
// team folder dir, whatever their server (for status without --server). It
// returns the only one's path and server, ok false when there is none, and
// an error wrapping ErrSeveralServers (naming them) when several servers
// have one. Unreadable journals and those of other repos or folders are
// ignored.
func FindJournal(stateDir, repo, dir string) (path, server string, ok bool, err error) {
	names, err := filepath.Glob(filepath.Join(stateDir, "journal-*.json"))
	if err != nil {
		return "", "", false, fmt.Errorf("find the journal: %w", err)
	}
	folder := ResolveFolder(dir)
	var servers []string
	for _, name := range names {
		var j Journal
		data, err := os.ReadFile(name)
		if err != nil || json.Unmarshal(data, &j) != nil || j.Repo != repo || j.Folder != folder {
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
	return "", "", false, fmt.Errorf("%s in %s was %w (%s): pass --server URL",
		repo, dir, ErrSeveralServers, strings.Join(servers, ", "))
}
