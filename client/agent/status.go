package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/memcore/protocol"
)

// Pending is a local change not yet pushed.
type Pending struct {
	Path   string `json:"path"`
	Change string `json:"change"` // added, modified or deleted
}

// Status is what `status` shows of one repo and team folder (spec/agent.md
// §5); its JSON is the command's --json output.
type Status struct {
	Repo         string `json:"repo"`
	Dir          string `json:"dir"`
	StateDir     string `json:"stateDir"`
	Server       string `json:"server"`
	Journal      string `json:"journal"`
	AgentRunning bool   `json:"agentRunning"`
	// AgentPID is the pid of the agent holding the folder, 0 when none or
	// unknown.
	AgentPID       int        `json:"agentPid,omitempty"`
	LastSync       *time.Time `json:"lastSync"`
	Version        int64      `json:"version"`
	Checksum       string     `json:"checksum"`
	ServerVersion  *int64     `json:"serverVersion,omitempty"`
	ServerChecksum string     `json:"serverChecksum,omitempty"`
	ServerError    string     `json:"serverError,omitempty"`
	// ServerLost says what was seen when the server lost this repo's data
	// (its version is below the one this folder last synced): nothing is
	// pushed until `sync --reseed`.
	ServerLost string    `json:"serverLost,omitempty"`
	Pending    []Pending `json:"pending"`
	// Awaiting are the keys of the caller's open proposals of the repo
	// (a repository that reviews writes), when the server says.
	Awaiting    []Awaiting `json:"awaiting,omitempty"`
	Conflicts   []string   `json:"conflicts"`
	Skipped     []Skip     `json:"skipped"`
	FolderError string     `json:"folderError,omitempty"`
	// TeamBlock is the team memory block of each checkout.
	TeamBlock []BlockStatus `json:"teamBlock"`
	// StaleReferences counts the code references of the team folder's
	// topics that the first checkout's HEAD does not hold (`memory lint`
	// names them); 0 without a checkout.
	StaleReferences int `json:"staleReferences"`
	// Stream is the running agent's event stream; nil when no agent runs.
	Stream *StreamState `json:"stream,omitempty"`
	// Consolidation is the consolidation rewriting the memory folder, nil
	// when none is in progress.
	Consolidation *ConsolidationStatus `json:"consolidation,omitempty"`
	// TokenExpires is when the token expires, when it tells; Token says
	// what to do about it once that is within ExpiryWarning or past.
	TokenExpires *time.Time `json:"tokenExpires,omitempty"`
	Token        string     `json:"token,omitempty"`
}

// BlockStatus is the team memory block of one assistant's file in one
// checkout.
type BlockStatus struct {
	Checkout string `json:"checkout"`
	// Assistant is the target's name (claude, codex, ...) and File the
	// file that holds the block, a slash path from the checkout's top.
	Assistant string `json:"assistant,omitempty"`
	File      string `json:"file,omitempty"`
	// State is "in place", "missing", "off (--no-inject)" or why the
	// agent leaves the file alone.
	State string `json:"state"`
	// Fix says how to let the agent write the block, when it cannot.
	Fix string `json:"fix,omitempty"`
}

// StatusOptions says what ReadStatus looks at.
type StatusOptions struct {
	Repo, Dir, StateDir string
	// Server is the server URL: the journal that last reached its server
	// by it (FindServerJournal); "" finds the folder's only journal
	// (FindJournal) and takes its server.
	Server string
	// Remote, when not nil, is asked for the repo's hashes within
	// ProbeTimeout (5 s when zero).
	Remote       Remote
	ProbeTimeout time.Duration
	// Explain turns an error into the sentence shown; nil uses Error().
	Explain func(error) error
	// Checkouts lists the checkouts that get the team memory block (nil:
	// none), Targets the assistants' files of each (nil: Claude Code's
	// only); NoInject says the block is turned off.
	Checkouts func() ([]string, error)
	Targets   func(checkout string) []assistants.Assistant
	NoInject  bool
	// Exclude names the folders below Dir that are not synced
	// (ScanOptions.Exclude).
	Exclude []string
	// MemDir is the memory folder whose consolidation lock holds the
	// folder's pushes (ConsolidationWatch.MemDir); "" for none.
	MemDir string
	// TokenExpiry and Relogin are Config's: when the token expires, and
	// the command that gets a new one.
	TokenExpiry func() (time.Time, bool)
	Relogin     string
}

// ReadStatus gathers the status of one repo and team folder. It only
// reads: the journal (without cleaning beside it, as a running agent may
// be writing), the folder lock, the folder and, with a Remote, the
// server's hashes. Errors are those of FindJournal and of reading an
// existing journal; folder and server problems are reported in the Status.
func ReadStatus(ctx context.Context, o StatusOptions) (*Status, error) {
	explain := o.Explain
	if explain == nil {
		explain = func(err error) error { return err }
	}
	st := &Status{Repo: o.Repo, Dir: o.Dir, StateDir: o.StateDir, Server: o.Server,
		Journal: JournalPath(o.StateDir, o.Server, o.Repo, o.Dir), Pending: []Pending{}, Conflicts: []string{}, Skipped: []Skip{}, TeamBlock: []BlockStatus{}}
	if path, ok := FindServerJournal(o.StateDir, o.Server, o.Repo, o.Dir); o.Server != "" && ok {
		st.Journal = path // keyed by the server's identity
	}
	if o.Server == "" {
		path, server, ok, err := FindJournal(o.StateDir, o.Repo, o.Dir)
		if err != nil {
			return nil, err
		}
		if ok {
			st.Journal, st.Server = path, server
		}
	}
	j, err := st.readJournal()
	if err != nil {
		return nil, err
	}
	st.AgentRunning = FolderLocked(o.Dir)
	if st.AgentRunning {
		st.AgentPID = FolderHolder(o.Dir)
	}
	if st.AgentRunning {
		st.Stream = readStreamState(StreamStatePath(st.Journal))
	}
	st.Consolidation = readConsolidation(o.MemDir, st.Journal, st.AgentRunning, time.Now())
	st.scanFolder(j, explain, o.Exclude)
	st.tokenState(o)
	var probeErr error
	if o.Remote != nil {
		probeErr = st.probeServer(ctx, o, explain)
	}
	// A refused token keeps the block of a folder synced before (the
	// running agent renders it from the folder on disk).
	refused := errors.Is(probeErr, client.ErrForbidden) ||
		errors.Is(probeErr, client.ErrUnauthorized) && j.Version == 0 && len(j.Entries) == 0
	if o.Checkouts != nil {
		st.TeamBlock = blockStates(o.Checkouts, o.Targets, o.NoInject, refused)
		st.StaleReferences = staleCount(ctx, o.Checkouts, o.Dir)
	}
	return st, nil
}

// blockStates says where the team memory block stands in each chosen
// target of each checkout.
func blockStates(checkouts func() ([]string, error), targets func(string) []assistants.Assistant, noInject, refused bool) []BlockStatus {
	out := []BlockStatus{}
	roots, err := checkouts()
	if err != nil {
		return append(out, BlockStatus{State: "cannot list the checkouts: " + err.Error()})
	}
	for _, co := range roots {
		for _, t := range chosenIn(targets, co) {
			b := BlockStatus{Checkout: co, Assistant: t.Name, File: t.File, State: "off (--no-inject)"}
			switch {
			case noInject:
			case refused:
				b.State = "kept out: the server refuses the token this repository (see server)"
			default:
				fs := teamblock.State(co, t)
				b.File, b.State, b.Fix = fs.File, fs.State, fs.Fix
			}
			out = append(out, b)
		}
	}
	return out
}

// readJournal reads the journal file read-only and fills the last sync.
func (st *Status) readJournal() (*Journal, error) {
	j := &Journal{Entries: map[string]BaseEntry{}}
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
	st.Version, st.Checksum = j.Version, j.Checksum
	if !j.Unsettled { // an unsettled journal never completed a sync (a refused pull saves one too)
		t := fi.ModTime().UTC()
		st.LastSync = &t
	}
	return j, nil
}

// scanFolder fills the pending changes, conflict copies and skipped files.
func (st *Status) scanFolder(j *Journal, explain func(error) error, exclude []string) {
	if _, err := os.Lstat(st.Dir); errors.Is(err, fs.ErrNotExist) {
		st.FolderError = "not created yet: the first sync makes it (teammem-agent sync, or the running agent)"
		return
	}
	snap, err := ScanDir(st.Dir, ScanOptions{Exclude: exclude})
	if err != nil {
		st.FolderError = explain(err).Error()
		return
	}
	for _, sk := range snap.Skipped {
		st.Skipped = append(st.Skipped, Skip{Path: sk.Path(), Reason: sk.Reason.Error()})
	}
	st.Pending = pendingChanges(snap, j.Base())
	st.Conflicts = slices.DeleteFunc(conflictCopies(st.Dir), func(p string) bool { return excludedKey(exclude, p) })
}

// pendingChanges compares the folder with the journal's base.
func pendingChanges(snap *Snapshot, base map[string]string) []Pending {
	out := []Pending{}
	for k, sum := range snap.Checksums {
		switch b, ok := base[k]; {
		case !ok:
			out = append(out, Pending{k, "added"})
		case b != sum:
			out = append(out, Pending{k, "modified"})
		}
	}
	skipped := snap.SkippedKeys()
	for k := range base {
		if _, ok := snap.Checksums[k]; !ok && !skipped[k] {
			out = append(out, Pending{k, "deleted"})
		}
	}
	slices.SortFunc(out, func(a, b Pending) int { return strings.Compare(a.Path, b.Path) })
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
		case d.Type().IsRegular() && protocol.IsConflictCopy(p):
			out = append(out, p)
		}
		return nil
	})
	return out
}

// tokenState fills when the token expires and, within ExpiryWarning of
// that or past it, what to do.
func (st *Status) tokenState(o StatusOptions) {
	if o.TokenExpiry == nil {
		return
	}
	exp, ok := o.TokenExpiry()
	if !ok {
		return
	}
	st.TokenExpires, st.Token = &exp, TokenNote(exp, time.Now(), o.Relogin)
}

// probeServer asks the server for the repo's hashes; it returns the
// server's refusal, nil when it answered.
func (st *Status) probeServer(ctx context.Context, o StatusOptions, explain func(error) error) error {
	timeout := o.ProbeTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	h, _, err := probeHashes(ctx, o.Remote, o.Repo)
	if err != nil {
		st.ServerError = explain(err).Error()
		return err
	}
	st.ServerVersion, st.ServerChecksum = &h.Version, h.Checksum
	st.Skipped = append(st.Skipped, invalidServerKeys(h.EntryChecksums)...)
	st.Awaiting = openProposals(ctx, o.Remote, o.Repo)
	if h.Version < st.Version {
		st.ServerLost = fmt.Sprintf("the server is at version %d, this folder last synced version %d: it lost data; nothing is pushed until `teammem-agent sync --reseed`",
			h.Version, st.Version)
	}
	return nil
}

// invalidServerKeys names, sorted, the keys the server holds that fail
// protocol.ValidateKey (data from before a rule, a hostile server): sync
// never writes them here and the team block never links them.
func invalidServerKeys(sums map[string]string) []Skip {
	var out []Skip
	for _, k := range slices.Sorted(maps.Keys(sums)) {
		if err := protocol.ValidateKey(k); err != nil {
			out = append(out, Skip{Path: k, Reason: "held by the server but not a valid key, so never synced here nor linked from the team block: " + err.Error()})
		}
	}
	return out
}
