package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teammem/teammem/client/agent"
	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/client/userconfig"
	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/protocol"
	memsession "github.com/teammem/teammem/memcore/session"
)

// agentMemFolder is an agent memory folder synced with one of the user's
// personal repositories.
type agentMemFolder struct {
	repo string // ~/.agent-memory/<type> or ~/.agent-memory-local/<slug>
	dir  string
	// checkout is the checkout of a local-scope folder, "" for the user
	// scope.
	checkout string
}

// personalCheckout is a registered checkout whose personal memory is
// synced, with its repository's slug.
type personalCheckout struct{ path, slug string }

// agentMemListEvery is how often the running agent asks the server which
// agent memories the user has, to start syncing one another machine made.
const agentMemListEvery = time.Minute

// agentMemSync finds the agent memory folders run syncs, with the personal
// memory switch (userconfig.Config.PersonalAny): every agent type's
// user-scope folder found on this machine or on the server, and the
// local-scope folder of each checkout whose personal memory is synced,
// where it exists or the server has it. It is used by run's supervision
// only (one goroutine).
type agentMemSync struct {
	e *cliEnv
	c commonFlags
	// checkouts are the personal checkouts registeredRunners found last,
	// on whether any personal memory is synced.
	checkouts []personalCheckout
	on        bool
	// listed is when the server was last asked; onServer what it had.
	listed   time.Time
	onServer []string
	last     []agentMemFolder
}

// changed reports whether the folders to sync differ from those last
// returned by folders.
func (a *agentMemSync) changed() bool {
	return !slices.Equal(a.find(), a.last)
}

// folders returns the folders to sync for uc and checkouts, and remembers
// them.
func (a *agentMemSync) folders(uc userconfig.Config, checkouts []personalCheckout) []agentMemFolder {
	a.on, a.checkouts = uc.PersonalAny(), checkouts
	a.last = a.find()
	return a.last
}

// find lists the folders to sync now.
func (a *agentMemSync) find() []agentMemFolder {
	if !a.on {
		return nil
	}
	a.listServer()
	var out []agentMemFolder
	base := filepath.Join(memcore.MemoryBase(memcore.Env{Home: a.e.Home, Cwd: a.e.Cwd, Getenv: a.e.Getenv}), "agent-memory")
	types := localAgentTypes(base)
	for _, repo := range a.onServer {
		if t, ok := protocol.AgentMemoryType(repo); ok && !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	slices.Sort(types)
	for _, t := range types {
		repo, _ := protocol.MyAgentMemoryRepo(t) // both lists hold valid names only
		out = append(out, agentMemFolder{repo: repo, dir: filepath.Join(base, t)})
	}
	for _, co := range a.checkouts {
		repo, err := protocol.MyLocalAgentMemoryRepo(co.slug)
		if err != nil {
			continue // a slug of eight segments: no room (status says so)
		}
		dir := filepath.Join(co.path, filepath.FromSlash(localAgentMemoryName))
		if _, err := os.Stat(dir); err == nil || slices.Contains(a.onServer, repo) {
			out = append(out, agentMemFolder{repo: repo, dir: dir, checkout: co.path})
		}
	}
	return out
}

// localAgentTypes lists the user-scope agent type folders of base that
// have a wire name.
func localAgentTypes(base string) []string {
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if _, err := protocol.MyAgentMemoryRepo(e.Name()); err == nil && e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// listServer asks the server for the user's agent memory repositories,
// at most every agentMemListEvery; on failure the last answer stands.
func (a *agentMemSync) listServer() {
	if time.Since(a.listed) < agentMemListEvery {
		return
	}
	a.listed = time.Now()
	cc := a.c
	cc.noRepo = true
	s, err := newSession(a.e, "run", cc)
	if err != nil {
		return
	}
	cl, err := s.newClient()
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := cl.Repos(ctx)
	if err != nil {
		s.log.Debug("cannot list the agent memories on the server", "err", err)
		return
	}
	a.onServer = a.onServer[:0]
	for _, r := range list.Repos {
		if _, short, ok := strings.Cut(r.Repo, "/"); ok && strings.HasPrefix(r.Repo, protocol.PersonalMark) {
			a.onServer = append(a.onServer, protocol.MyPersonalRepo(short))
		}
	}
}

// runner returns the runner of one agent memory folder: a local-scope
// folder is kept out of git first (the agent may create it).
func (f agentMemFolder) runner(e *cliEnv, c commonFlags, rf runFlags, out *printer) (string, agent.Runner, error) {
	s, err := newFolderSession(e, c, f.repo, f.dir)
	if err != nil {
		return "", nil, err
	}
	s.out = out
	run := s.runner(rf)
	if f.checkout != "" {
		inner := run
		run = func(ctx context.Context) error {
			if err := keepLocalAgentMemoryOutOfGit(f.checkout); err != nil {
				s.log.Warn("cannot keep the local agent memory out of git", "checkout", f.checkout, "err", err)
			}
			return inner(ctx)
		}
	}
	return agent.RunnerKey(s.dir, s.slug, s.server, s.flags.token, s.flags.tokenFile, nil), run, nil
}

// localAgentMemoryName is the local-scope agent memory folder's path from
// a checkout's top.
const localAgentMemoryName = ".claude/agent-memory-local"

// keepLocalAgentMemoryOutOfGit adds the checkout's local-scope agent
// memory folder to its repository's info/exclude unless git ignores it.
func keepLocalAgentMemoryOutOfGit(checkout string) error {
	return teamblock.KeepOutOfGit(checkout, localAgentMemoryName)
}

// newFolderSession is the session of a repository (a personal one, or an
// org memory) synced with a folder the caller names, no checkout's: no
// block, no consolidation lock.
func newFolderSession(e *cliEnv, c commonFlags, repo, dir string) (*session, error) {
	log, err := newLogger(e, c.logLevel)
	if err != nil {
		return nil, err
	}
	if _, err := c.applyConfig(e); err != nil {
		return nil, err
	}
	c.personal, c.dir = strings.HasPrefix(repo, protocol.PersonalMark), dir
	s := &session{e: e, flags: c, log: log, out: newPrinter(e, "run", c.json), server: strings.TrimRight(c.server, "/"), slug: repo, dir: filepath.Clean(dir)}
	if s.stateDir, err = resolveStateDir(e, c); err != nil {
		return nil, err
	}
	s.targets = func(string) []assistants.Assistant { return nil }
	return s, nil
}

// agentMemoryRow is one agent memory of a checkout in status: where it is,
// whether it is synced and with which repository, and its snapshot.
type agentMemoryRow struct {
	Type  string `json:"type"`
	Scope string `json:"scope"`
	Dir   string `json:"dir"`
	// Synced is the personal repository it is synced with, "" when it is
	// not; Sync says how it travels otherwise.
	Synced string `json:"synced,omitempty"`
	Sync   string `json:"sync"`
	// Snapshot is the snapshot action (none, initialize, update-available)
	// and SnapshotDate the project snapshot's date, when there is one.
	Snapshot     string     `json:"snapshot"`
	SnapshotDate *time.Time `json:"snapshotDate,omitempty"`
}

// agentMemoryRows lists the agent memories a checkout reaches and how each
// is synced: user scope with personal memory anywhere, local scope with
// the checkout's personal memory, project scope by git.
func agentMemoryRows(e *cliEnv, checkout, slug string, uc userconfig.Config, personal bool) []agentMemoryRow {
	out := []agentMemoryRow{}
	for _, m := range memsession.ListAgentMemories(memcore.Env{Home: e.Home, Cwd: checkout, Getenv: e.Getenv}) {
		row := agentMemoryRow{Type: m.Type, Scope: string(m.Scope), Dir: m.Dir, Snapshot: string(m.Snapshot.Action)}
		if !m.Snapshot.UpdatedAt.IsZero() {
			t := m.Snapshot.UpdatedAt.UTC()
			row.SnapshotDate = &t
		}
		row.Synced, row.Sync = agentMemorySync(m, slug, uc.PersonalAny(), personal)
		out = append(out, row)
	}
	return out
}

// agentMemorySync says whether and how one agent memory is synced.
func agentMemorySync(m memsession.AgentMemory, slug string, personalAny, personal bool) (repo, how string) {
	switch m.Scope {
	case "":
		return "", "no memory yet: the project's snapshot can start one"
	case memsession.AgentScopeProject:
		return "", "in the repository: git's"
	case memsession.AgentScopeUser:
		repo, err := protocol.MyAgentMemoryRepo(m.Type)
		switch {
		case err != nil:
			return "", "not synced: its name is not lower-case letters, digits, '.', '_' and '-'"
		case !personalAny:
			return "", "not synced: personal memory is off"
		}
		return repo, "synced with your personal memory"
	}
	repo, err := protocol.MyLocalAgentMemoryRepo(slug)
	switch {
	case slug == "":
		return "", "not synced: the checkout's repository is unknown"
	case err != nil:
		return "", "not synced: the repository's name has no room for it"
	case !personal:
		return "", "not synced: this checkout's personal memory is off"
	}
	return repo, "synced with this checkout's personal memory"
}

// statusWithAgents is a team folder's status with the agent memories and
// org memories of its checkout (status --json).
type statusWithAgents struct {
	*agent.Status
	AgentMemory []agentMemoryRow `json:"agentMemory,omitempty"`
	OrgMemory   []orgMemoryRow   `json:"orgMemory,omitempty"`
}

// printAgentMemory writes the agent memory lines of status.
func printAgentMemory(w io.Writer, rows []agentMemoryRow) {
	for _, r := range rows {
		scope := r.Scope
		if scope == "" {
			scope = "snapshot"
		}
		line := r.Sync
		if r.Synced != "" {
			line += " (" + r.Synced + ")"
		}
		switch memsession.SnapshotAction(r.Snapshot) {
		case memsession.SnapshotUpdateAvailable:
			line += fmt.Sprintf("; the project's snapshot of %s is newer than the one it was initialised from", r.SnapshotDate.Format(time.DateOnly))
		case memsession.SnapshotInitialize:
			if r.Scope != "" { // a type with only a snapshot says so in r.Sync
				line += "; empty: the project's snapshot can initialise it"
			}
		}
		fmt.Fprintf(w, "agent mem: %q (%s): %s\n", r.Type, scope, line)
	}
}
