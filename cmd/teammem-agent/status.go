package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teammem/teammem/client/agent"
)

func init() {
	register(command{Name: "status", Summary: "show the repo, folders, server, last sync, pending changes and conflicts", Run: runStatus})
}

// serverProbeTimeout bounds status's look at the server.
const serverProbeTimeout = 5 * time.Second

// pendingJSON is a local change not yet pushed.
type pendingJSON struct {
	Path   string `json:"path"`
	Change string `json:"change"` // added, modified or deleted
}

// statusJSON is the --json output of status.
type statusJSON struct {
	Repo           string        `json:"repo"`
	Dir            string        `json:"dir"`
	StateDir       string        `json:"stateDir"`
	Server         string        `json:"server"`
	Journal        string        `json:"journal"`
	AgentRunning   bool          `json:"agentRunning"`
	LastSync       *time.Time    `json:"lastSync"`
	Version        int64         `json:"version"`
	Checksum       string        `json:"checksum"`
	ServerVersion  *int64        `json:"serverVersion,omitempty"`
	ServerChecksum string        `json:"serverChecksum,omitempty"`
	ServerError    string        `json:"serverError,omitempty"`
	Pending        []pendingJSON `json:"pending"`
	Conflicts      []string      `json:"conflicts"`
	Skipped        []skipJSON    `json:"skipped"`
	FolderError    string        `json:"folderError,omitempty"`
	TeamBlock      []blockJSON   `json:"teamBlock"`
}

// blockJSON is the team memory block of one checkout.
type blockJSON struct {
	Checkout string `json:"checkout"`
	// State is "in place", "missing", "off (--no-inject)" or why the
	// agent leaves the file alone.
	State string `json:"state"`
	// Fix says how to let the agent write the block, when it cannot.
	Fix string `json:"fix,omitempty"`
}

// runStatus is `teammem-agent status`. It only reads: the journal (without
// touching it), the folder and, when a server is set, its hashes.
func runStatus(ctx context.Context, e *cliEnv, args []string) error {
	fs := newFlagSet("status", "status [flags]", e.Stdout)
	var c commonFlags
	c.register(fs)
	if err := parseFlags(fs, args, e.Getenv); err != nil {
		return helpOK(err)
	}
	s, err := newSession(e, "status", c)
	if err != nil {
		return err
	}
	st := statusJSON{Repo: s.slug, Dir: s.dir, StateDir: s.stateDir, Server: s.server,
		Journal: agent.JournalPath(s.stateDir, s.server, s.slug, s.dir), Pending: []pendingJSON{}, Conflicts: []string{}, Skipped: []skipJSON{}}
	if s.server == "" {
		path, server, ok, err := findJournal(s.stateDir, s.slug, s.dir)
		if err != nil {
			return err
		}
		if ok { // the journal names the server; status still only reads it
			st.Journal, st.Server = path, server
		}
	}
	j, err := s.readJournal(&st)
	if err != nil {
		return err
	}
	st.AgentRunning = lockHeld(lockPath(s.stateDir, s.dir))
	s.scanFolder(&st, j)
	st.TeamBlock = s.blockStates()
	if s.server != "" {
		s.probeServer(ctx, &st)
	}
	if c.json {
		s.out.object(st)
	} else {
		printStatus(s, st)
	}
	return nil
}

// readJournal reads the journal file directly, read-only: OpenJournal
// would clean temporary files that a running agent may be writing.
func (s *session) readJournal(st *statusJSON) (*agent.Journal, error) {
	j := &agent.Journal{Entries: map[string]agent.BaseEntry{}}
	fi, err := os.Stat(st.Journal)
	if errors.Is(err, fs.ErrNotExist) {
		return j, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the journal: %w", err)
	}
	data, err := os.ReadFile(st.Journal)
	if err == nil {
		err = json.Unmarshal(data, j)
	}
	if err != nil {
		return nil, fmt.Errorf("read the journal %s: %w", st.Journal, err)
	}
	t := fi.ModTime().UTC()
	st.LastSync, st.Version, st.Checksum = &t, j.Version, j.Checksum
	return j, nil
}

// lockHeld reports whether an agent holds the lock at path.
func lockHeld(path string) bool {
	if _, err := os.Stat(path); err != nil {
		return false
	}
	l, err := acquireLock(path, "status")
	if err != nil {
		return errors.Is(err, errLocked)
	}
	l.Release()
	return false
}

// scanFolder fills the pending changes, conflict copies and skipped files.
func (s *session) scanFolder(st *statusJSON, j *agent.Journal) {
	snap, err := agent.ScanDir(s.dir, agent.ScanOptions{})
	if err != nil {
		st.FolderError = s.explain(err).Error()
		return
	}
	for _, sk := range snap.Skipped {
		st.Skipped = append(st.Skipped, skipJSON{Path: sk.Key, Reason: sk.Reason.Error()})
	}
	st.Pending = pendingChanges(snap, j.Base())
	st.Conflicts = conflictCopies(s.dir)
}

// blockStates says where each checkout's team memory block stands.
func (s *session) blockStates() []blockJSON {
	out := []blockJSON{}
	for _, co := range s.checkouts {
		b := blockJSON{Checkout: co, State: "off (--no-inject)"}
		if !s.flags.noInject {
			b.State, b.Fix = agent.BlockState(co)
		}
		out = append(out, b)
	}
	return out
}

// pendingChanges compares the folder with the journal's base.
func pendingChanges(snap *agent.Snapshot, base map[string]string) []pendingJSON {
	out := []pendingJSON{}
	for k, sum := range snap.Checksums {
		switch b, ok := base[k]; {
		case !ok:
			out = append(out, pendingJSON{k, "added"})
		case b != sum:
			out = append(out, pendingJSON{k, "modified"})
		}
	}
	skipped := snap.SkippedKeys()
	for k := range base {
		if _, ok := snap.Checksums[k]; !ok && !skipped[k] {
			out = append(out, pendingJSON{k, "deleted"})
		}
	}
	slices.SortFunc(out, func(a, b pendingJSON) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// conflictCopies lists the conflict copies in dir, through an os.Root.
func conflictCopies(dir string) []string {
	out := []string{}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return out
	}
	defer root.Close()
	fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // best effort: status shows what it can read
		case p != "." && strings.HasPrefix(d.Name(), "."):
			if d.IsDir() {
				return fs.SkipDir
			}
		case d.Type().IsRegular() && agent.IsConflictCopy(p):
			out = append(out, p)
		}
		return nil
	})
	return out
}

// probeServer asks the server for the repo's hashes.
func (s *session) probeServer(ctx context.Context, st *statusJSON) {
	c, err := s.newClient()
	if err != nil {
		st.ServerError = err.Error()
		return
	}
	ctx, cancel := context.WithTimeout(ctx, serverProbeTimeout)
	defer cancel()
	h, _, err := probe(ctx, c, s.slug)
	if err != nil {
		st.ServerError = s.explain(err).Error()
		return
	}
	st.ServerVersion, st.ServerChecksum = &h.Version, h.Checksum
}

// printStatus writes the status for a person.
func printStatus(s *session, st statusJSON) {
	w := s.e.Stdout
	fmt.Fprintf(w, "repo:      %s\nfolder:    %s\nstate:     %s\n", st.Repo, st.Dir, st.StateDir)
	fmt.Fprintf(w, "server:    %s\n", orDefault(st.Server, "(none; set --server or TEAMMEM_SERVER)"))
	switch {
	case st.ServerError != "":
		fmt.Fprintf(w, "           %s\n", st.ServerError)
	case st.ServerVersion != nil:
		fmt.Fprintf(w, "           version %d (%s)\n", *st.ServerVersion, shortSum(st.ServerChecksum))
	}
	running := "no"
	if st.AgentRunning {
		running = "yes"
	}
	fmt.Fprintf(w, "agent:     running: %s\n", running)
	if st.LastSync == nil {
		fmt.Fprintln(w, "last sync: never")
	} else {
		fmt.Fprintf(w, "last sync: %s, version %d (%s)\n", st.LastSync.Local().Format(time.RFC3339), st.Version, shortSum(st.Checksum))
	}
	if st.FolderError != "" {
		fmt.Fprintf(w, "folder:    %s\n", st.FolderError)
	}
	fmt.Fprintf(w, "pending:   %d\n", len(st.Pending))
	for _, p := range st.Pending {
		fmt.Fprintf(w, "  %-8s %q\n", p.Change, p.Path)
	}
	fmt.Fprintf(w, "conflicts: %d\n", len(st.Conflicts))
	for _, c := range st.Conflicts {
		fmt.Fprintf(w, "  %q\n", c)
	}
	for _, sk := range st.Skipped {
		fmt.Fprintf(w, "skipped:   %q: %s\n", sk.Path, sk.Reason)
	}
	for _, b := range st.TeamBlock {
		fmt.Fprintf(w, "block:     %s: %s\n", filepath.Join(b.Checkout, agent.LocalMdName), b.State)
		if b.Fix != "" {
			fmt.Fprintf(w, "           to fix: %s\n", b.Fix)
		}
	}
}
