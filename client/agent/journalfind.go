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
	found := folderJournals(stateDir, repo, dir)
	switch len(found) {
	case 0:
		return "", "", false, nil
	case 1:
		return found[0].path, found[0].Server, true, nil
	}
	var servers []string
	for _, j := range found {
		servers = append(servers, j.Server)
	}
	slices.Sort(servers)
	return "", "", false, fmt.Errorf("%s in %s was %w (%s): pass --server URL",
		repo, dir, ErrSeveralServers, strings.Join(servers, ", "))
}

// FindServerJournal returns the path of the journal of repo and dir that
// last reached its server by the URL server (keyed by the server's
// identity or by that URL), and whether there is one.
func FindServerJournal(stateDir, server, repo, dir string) (string, bool) {
	for _, j := range folderJournals(stateDir, repo, dir) {
		if j.Server == server {
			return j.path, true
		}
	}
	return "", false
}

// folderJournals reads the head of every journal in stateDir of repo
// synced with the team folder dir (entries included; each bound to its
// file), in file name order. Unreadable journals and those of other repos
// or folders are left out.
func folderJournals(stateDir, repo, dir string) []*Journal {
	names, _ := filepath.Glob(filepath.Join(stateDir, "journal-*.json")) // only a malformed pattern fails
	folder := ResolveFolder(dir)
	var out []*Journal
	for _, name := range names {
		j := &Journal{}
		data, err := os.ReadFile(name)
		if err != nil || json.Unmarshal(data, j) != nil || j.Repo != repo || j.Folder != folder {
			continue // unreadable or someone else's: not this folder's
		}
		j.path = name
		out = append(out, j)
	}
	return out
}
