package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teammem/teammem/internal/atomicfile"
	"github.com/teammem/teammem/memcore/protocol"
)

// journalFormat is the version of the journal file's layout.
const journalFormat = 1

// ErrCorruptJournal is wrapped by OpenJournal's error when the journal file
// exists but cannot be trusted (unparsable, another repo's, an entry whose
// content does not match its checksum). The journal returned with it is
// empty, which makes the next reconcile push local-only keys, write
// server-only keys and delete nothing.
//
// A journal belongs to one team folder as well: the base of one clone says
// nothing about another, whose missing keys would otherwise look deleted.
var ErrCorruptJournal = errors.New("corrupt journal")

// BaseEntry is one key as last agreed with the server: its checksum and a
// copy of its content, the base of a three-way merge.
type BaseEntry struct {
	Checksum string `json:"checksum"`
	Content  string `json:"content"`
}

// Journal is the agent's memory of one repo on one server (spec/agent.md
// §1): the dataset checksum and version last seen, and every key as last
// agreed. A Journal is not safe for concurrent use; the engine's goroutine
// owns it.
type Journal struct {
	path   string
	Server string `json:"server"`
	// ServerID is the server's identity (api.ServerInfo) when the journal
	// is keyed by it (OpenServerJournal); "" for one keyed by the URL.
	// Server is then only the URL it was last reached by.
	ServerID string `json:"serverId,omitempty"`
	Repo     string `json:"repo"`
	Folder   string `json:"folder"`
	Checksum string `json:"checksum"`
	Version  int64  `json:"version"`
	// Unsettled says the journal was started afresh (no file, or one that
	// could not be trusted) and no cycle has yet applied the server's
	// changes to the folder: until one has, a local file unknown to the
	// journal is looked up in the server's history (see Input.OldCopies)
	// instead of being taken for an edit.
	Unsettled bool `json:"unsettled,omitempty"`
	// Writing holds the server's content of keys the agent is about to
	// write into the folder, saved before the first rename: a key whose
	// file holds exactly that content after a crash was written by the
	// agent and is agreed (settleWrites), not a local edit. It precedes
	// Entries, which encode streams last.
	Writing map[string]BaseEntry `json:"writing,omitempty"`
	// StaleReported fingerprints the last stale-reference report the
	// server took (see reportStale), so that a sync that finds the same
	// sends nothing, whichever process runs it.
	StaleReported string               `json:"staleReported,omitempty"`
	Entries       map[string]BaseEntry `json:"entries"`
	// changed says the journal differs from what was last saved or read.
	changed bool
	// replaced, for a new journal, is the journal of the folder that last
	// reached the same URL when it answered as another identity (see
	// ErrServerReplaced); nil otherwise.
	replaced *Journal
}

// journalFile is the journal's layout on disk.
type journalFile struct {
	Format int `json:"format"`
	*Journal
}

// JournalPath returns the journal file of repo on server synced with the
// team folder dir, under stateDir: "journal-<first 32 hex digits of
// SHA-256(server, NUL, repo, NUL, folder)>.json", where folder is dir made
// absolute with its symbolic links resolved (see ResolveFolder).
func JournalPath(stateDir, server, repo, dir string) string {
	return journalPath(stateDir, server, repo, ResolveFolder(dir))
}

func journalPath(stateDir, server, repo, folder string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + repo + "\x00" + folder))
	return filepath.Join(stateDir, "journal-"+hex.EncodeToString(sum[:16])+".json")
}

// ResolveFolder returns dir absolute, cleaned and with its symbolic links
// resolved, so that one folder reached by several paths has one name; a
// path that cannot be resolved (missing) is only made absolute and
// cleaned.
func ResolveFolder(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// OpenJournal reads the journal of repo on server for the team folder dir
// (see JournalPath) from stateDir, creating
// stateDir (mode 0700) when needed, and removes temporary files a crash left
// beside it. A missing journal gives an empty one and no error. A corrupt
// one gives an empty journal and an error wrapping ErrCorruptJournal; an
// unreadable one an empty journal and the read error. The journal returned
// is never nil, so that the caller can report the error and carry on.
func OpenJournal(stateDir, server, repo, dir string) (*Journal, error) {
	folder := ResolveFolder(dir)
	j := newJournal(journalPath(stateDir, server, repo, folder), server, "", repo, folder)
	return j.read(stateDir)
}

// newJournal returns the empty journal of a folder, started afresh.
func newJournal(path, server, serverID, repo, folder string) *Journal {
	return &Journal{path: path, Server: server, ServerID: serverID, Repo: repo, Folder: folder,
		Entries: map[string]BaseEntry{}, Unsettled: true}
}

// read reads the journal file of the empty journal j, creating stateDir
// when needed and cleaning the temporary files a crash left there; see
// OpenJournal for what it returns.
func (j *Journal) read(stateDir string) (*Journal, error) {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return j, fmt.Errorf("create state folder: %w", err)
	}
	removeStaleTemps(stateDir)
	loaded, err := j.load(j.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return j, nil
	case err != nil:
		return j, err
	}
	return loaded, nil
}

// load reads the journal file at path, which must be the journal of j's
// server, repo and folder, and returns it bound to j's file with j's
// server URL. Errors wrap fs.ErrNotExist for a missing file and
// ErrCorruptJournal for one that cannot be trusted.
func (j *Journal) load(path string) (*Journal, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	loaded, err := parseJournal(data, j)
	if err != nil {
		return nil, fmt.Errorf("read journal %s: %w: %v", path, ErrCorruptJournal, err)
	}
	loaded.path = j.path
	if loaded.Server != j.Server { // the same server by another URL
		loaded.Server, loaded.changed = j.Server, true
	}
	return loaded, nil
}

// parseJournal decodes and checks a journal file against want's server,
// repo and folder: a journal keyed by the server's identity matches that
// identity whatever its URL, one keyed by the URL (no identity) the URL.
func parseJournal(data []byte, want *Journal) (*Journal, error) {
	f := journalFile{Journal: &Journal{}}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	switch {
	case f.Format != journalFormat:
		return nil, fmt.Errorf("format %d, want %d", f.Format, journalFormat)
	case f.ServerID != want.ServerID || (want.ServerID == "" && f.Server != want.Server) ||
		f.Repo != want.Repo || f.Folder != want.Folder:
		return nil, fmt.Errorf("journal of %q on %q (%q) in %q", f.Repo, f.Server, f.ServerID, f.Folder)
	}
	for _, m := range []map[string]BaseEntry{f.Entries, f.Writing} {
		for k, e := range m {
			if protocol.EntryChecksum([]byte(e.Content)) != e.Checksum {
				return nil, fmt.Errorf("entry %q does not match its checksum", k)
			}
		}
	}
	if f.Entries == nil {
		f.Entries = map[string]BaseEntry{}
	}
	return f.Journal, nil
}

// staleTempAge is how old a temporary file in the state folder must be
// before OpenJournal removes it: no journal write takes that long, so a
// write in progress (of this agent or another sharing the folder) is never
// cut short.
const staleTempAge = time.Hour

// removeStaleTemps deletes the temporary files of atomic writes that a
// crash left in the state folder dir, when they are older than
// staleTempAge.
func removeStaleTemps(dir string) {
	entries, _ := os.ReadDir(dir) // nothing to clean in an unreadable folder
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), atomicfile.TempPrefix) || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleTempAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// Path returns the journal's file.
func (j *Journal) Path() string { return j.path }

// Save writes the journal atomically (temporary file, fsync, rename, folder
// fsync), mode 0600, whether or not it changed.
func (j *Journal) Save() error {
	if err := atomicfile.Write(j.path, 0o600, j.encode); err != nil {
		return fmt.Errorf("save journal: %w", err)
	}
	j.changed = false
	return nil
}

// encode writes the journal file (the layout of journalFile, keys sorted)
// one entry at a time, so that saving a large journal does not build it
// whole in memory.
func (j *Journal) encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	head := journalFile{Format: journalFormat, Journal: &Journal{Server: j.Server, ServerID: j.ServerID, Repo: j.Repo,
		Folder: j.Folder, Checksum: j.Checksum, Version: j.Version, Unsettled: j.Unsettled, Writing: j.Writing,
		StaleReported: j.StaleReported, Entries: map[string]BaseEntry{}}}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(head); err != nil {
		return fmt.Errorf("encode journal: %w", err)
	}
	open := bytes.TrimSuffix(bytes.TrimSpace(buf.Bytes()), []byte("}}")) // ... "entries":{
	if _, err := w.Write(open); err != nil {
		return err
	}
	for i, k := range slices.Sorted(maps.Keys(j.Entries)) {
		if i > 0 {
			io.WriteString(w, ",")
		}
		if err := enc.Encode(k); err != nil {
			return fmt.Errorf("encode journal: %w", err)
		}
		io.WriteString(w, ":")
		if err := enc.Encode(j.Entries[k]); err != nil {
			return fmt.Errorf("encode journal: %w", err)
		}
	}
	_, err := io.WriteString(w, "}}\n")
	return err
}

// Base returns key → checksum of every agreed key, the Base of an Input.
func (j *Journal) Base() map[string]string {
	base := make(map[string]string, len(j.Entries))
	for k, e := range j.Entries {
		base[k] = e.Checksum
	}
	return base
}

// Record notes that key holds content on both sides.
func (j *Journal) Record(key, content string) {
	e := BaseEntry{Checksum: protocol.EntryChecksum([]byte(content)), Content: content}
	if old, ok := j.Entries[key]; !ok || old != e {
		j.Entries[key], j.changed = e, true
	}
}

// adopt makes key's agreed content the string content when the entry's
// checksum is checksum (the checksum of content), so that the journal and
// the server view share one copy of an agreed text. It changes nothing
// that would be saved.
func (j *Journal) adopt(key, checksum, content string) {
	if e, ok := j.Entries[key]; ok && e.Checksum == checksum {
		j.Entries[key] = BaseEntry{Checksum: checksum, Content: content}
	}
}

// markWriting notes that the agent is about to write content (the
// server's) to each key of writes; save the journal before writing.
func (j *Journal) markWriting(writes map[string]string) {
	if len(writes) == 0 {
		return
	}
	if j.Writing == nil {
		j.Writing = map[string]BaseEntry{}
	}
	for k, c := range writes {
		j.Writing[k] = BaseEntry{Checksum: protocol.EntryChecksum([]byte(c)), Content: c}
	}
	j.changed = true
}

// doneWriting forgets the writes in progress: each was recorded (Record)
// or left undone.
func (j *Journal) doneWriting() {
	if j.Writing != nil {
		j.Writing, j.changed = nil, true
	}
}

// settleWrites resolves writes a crash interrupted: a key whose local file
// (local: key → checksum) holds what the agent was writing is agreed with
// that content; any other key's file was not written (or was edited
// since) and keeps its base. Then no write is in progress.
func (j *Journal) settleWrites(local map[string]string) {
	for k, w := range j.Writing {
		if local[k] == w.Checksum {
			j.Record(k, w.Content)
		}
	}
	j.doneWriting()
}

// settle notes that a cycle applied the server's changes to the folder
// (see Unsettled).
func (j *Journal) settle() {
	if j.Unsettled {
		j.Unsettled, j.changed = false, true
	}
}

// Forget notes that neither side holds key.
func (j *Journal) Forget(key string) {
	if _, ok := j.Entries[key]; ok {
		delete(j.Entries, key)
		j.changed = true
	}
}

// Content returns the agreed content of key, and whether there is one.
func (j *Journal) Content(key string) (string, bool) {
	e, ok := j.Entries[key]
	return e.Content, ok
}

// SetDataset records the dataset checksum and version last seen.
func (j *Journal) SetDataset(checksum string, version int64) {
	if j.Checksum != checksum || j.Version != version {
		j.Checksum, j.Version, j.changed = checksum, version, true
	}
}

// Clone returns a deep copy (entries included) bound to the same file.
func (j *Journal) Clone() *Journal {
	c := *j
	c.Entries = maps.Clone(j.Entries)
	c.Writing = maps.Clone(j.Writing)
	return &c
}
