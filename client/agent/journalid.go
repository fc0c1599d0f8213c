package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// ServerJournalPath returns the journal file of repo, on the server whose
// identity is serverID, synced with the team folder dir, under stateDir:
// "journal-<first 32 hex digits of SHA-256("id", NUL, serverID, NUL,
// repo, NUL, folder)>.json", folder as in JournalPath. Whatever URL the
// server is reached by, its journal is the same file.
func ServerJournalPath(stateDir, serverID, repo, dir string) string {
	return serverJournalPath(stateDir, serverID, repo, ResolveFolder(dir))
}

func serverJournalPath(stateDir, serverID, repo, folder string) string {
	sum := sha256.Sum256([]byte("id\x00" + serverID + "\x00" + repo + "\x00" + folder))
	return filepath.Join(stateDir, "journal-"+hex.EncodeToString(sum[:16])+".json")
}

// OpenServerJournal opens the journal of repo on the server whose identity
// is serverID, reached at the URL server, for the team folder dir: the
// journal of that history whatever URL it was last reached by. When there
// is none yet, the journal OpenJournal keeps for that URL (made before the
// server had an identity, or while it could not be reached) is moved to it,
// unless it belongs to another identity. Otherwise as OpenJournal.
func OpenServerJournal(stateDir, server, serverID, repo, dir string) (*Journal, error) {
	if serverID == "" {
		return OpenJournal(stateDir, server, repo, dir)
	}
	folder := ResolveFolder(dir)
	j := newJournal(serverJournalPath(stateDir, serverID, repo, folder), server, serverID, repo, folder)
	opened, err := j.read(stateDir)
	if err != nil || opened != j { // read, or an error to report
		return opened, err
	}
	if adopted, err := j.adoptURLJournal(journalPath(stateDir, server, repo, folder)); adopted != j || err != nil {
		return adopted, err
	}
	for _, prev := range folderJournals(stateDir, repo, dir) {
		if prev.Server == server && prev.ServerID != "" && prev.ServerID != serverID && prev.Version > 0 {
			j.replaced = prev // this URL's server was another database
		}
	}
	return j, nil
}

// ErrServerReplaced is wrapped by a cycle's error when the server reached
// by the URL the folder last synced by is another database (another
// identity) than the one it synced, and the journal of the new one is
// new: the old database was wiped or replaced, or the URL names another
// server. As for ErrServerLostData, nothing is pushed (or saved) until
// `sync --reseed` (Config.Reseed) syncs the folder with it as a new
// history; the old journal is then removed.
var ErrServerReplaced = errors.New("the server is another database than the one this folder synced")

// checkReplaced returns an error wrapping ErrServerReplaced when the
// journal's server replaced the one the folder last synced by its URL,
// unless the engine reseeds.
func (e *Engine) checkReplaced() error {
	prev := e.cfg.Journal.replaced
	if prev == nil || e.cfg.Reseed {
		return nil
	}
	return fmt.Errorf("%w: %s answers as %s, this folder last synced version %d of %s there; nothing is pushed until `teammem-agent sync --reseed` uploads the folder to it",
		ErrServerReplaced, e.cfg.Journal.Server, e.cfg.Journal.ServerID, prev.Version, prev.ServerID)
}

// forgetReplaced removes the journal of the database the journal's server
// replaced, once a cycle synced the folder with the new one.
func (j *Journal) forgetReplaced() error {
	if j.replaced == nil {
		return nil
	}
	if err := os.Remove(j.replaced.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the journal of the replaced server: %w", err)
	}
	os.Remove(StreamStatePath(j.replaced.path)) // absent unless an agent ran
	j.replaced = nil
	return nil
}

// adoptURLJournal moves the URL-keyed journal at legacy to j's file, keyed
// by j's identity, and returns it; without a trustworthy one it returns j
// (empty) and no error.
func (j *Journal) adoptURLJournal(legacy string) (*Journal, error) {
	byURL := newJournal(legacy, j.Server, "", j.Repo, j.Folder)
	loaded, err := byURL.load(legacy)
	if err != nil { // none, or one that cannot be trusted: stays where it is
		return j, nil
	}
	loaded.path, loaded.ServerID, loaded.changed = j.path, j.ServerID, true
	if err := loaded.Save(); err != nil {
		return j, fmt.Errorf("move the journal of %s to the server's identity: %w", j.Server, err)
	}
	if err := os.Remove(legacy); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return loaded, fmt.Errorf("remove the journal moved to the server's identity: %w", err)
	}
	moveStreamState(legacy, j.path)
	return loaded, nil
}

// moveStreamState renames the stream state file beside a moved journal.
func moveStreamState(from, to string) {
	_ = os.Rename(StreamStatePath(from), StreamStatePath(to)) // absent unless an agent ran; rewritten by the next
}

// ServerIdentifier tells the server's identity; *client.Client is one.
type ServerIdentifier interface {
	ServerInfo(ctx context.Context) (*api.ServerInfo, error)
}

var _ ServerIdentifier = (*client.Client)(nil)

// ResolveServerID asks the server at the URL server for its identity. When
// it cannot be reached, the identity of the journal of repo and dir last
// synced by that URL stands in (the journal names the URL it was last
// reached by). With none, from a server that has no identity (older than
// it) or from one whose answer is not an identity, it returns "": the
// journal is then keyed by the URL, as before identities, and moved to the
// identity on a later start.
func ResolveServerID(ctx context.Context, s ServerIdentifier, stateDir, server, repo, dir string) string {
	info, err := s.ServerInfo(ctx)
	switch {
	case err == nil:
		return info.ServerID
	case client.IsRetryable(err) || errors.Is(err, context.DeadlineExceeded):
		return knownServerID(stateDir, server, repo, dir)
	}
	return ""
}

// knownServerID returns the identity of the journal of repo and dir that
// last reached its server by the URL server, "" when there is none.
func knownServerID(stateDir, server, repo, dir string) string {
	for _, j := range folderJournals(stateDir, repo, dir) {
		if j.Server == server && j.ServerID != "" {
			return j.ServerID
		}
	}
	return ""
}
