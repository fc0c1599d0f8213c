package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/teammem/teammem/client/agent"
	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/protocol"
)

// orgFoldersOf returns the org memories of the repository slug, nearest
// first, each with the folder it is synced into (memcore.OrgMemoryDir):
// one folder per namespace, whatever checkouts share it.
func orgFoldersOf(e *cliEnv, slug string) []agent.OrgFolder {
	base := memcore.MemoryBase(memcore.Env{Home: e.Home, Cwd: e.Cwd, Getenv: e.Getenv})
	var out []agent.OrgFolder
	for _, repo := range protocol.OrgMemories(slug) {
		out = append(out, agent.OrgFolder{Repo: repo, Dir: memcore.OrgMemoryDir(base, protocol.OrgNamespace(repo))})
	}
	return out
}

// orgSession is the session of an org memory's folder: an ordinary team
// repository synced with a folder of no checkout's (no block of its own:
// the blocks of its namespace's checkouts carry its index). c is the
// flags of a checkout of the namespace (its server and token).
func orgSession(e *cliEnv, c commonFlags, o agent.OrgFolder) (*session, error) {
	c.repo, c.repoDir = "", ""
	return newFolderSession(e, c, o.Repo, o.Dir)
}

// orgRunner is the runner of an org memory's folder, keyed as run's
// supervision keys it; what it pulls nudges the blocks that carry it.
func orgRunner(e *cliEnv, c commonFlags, rf runFlags, out *printer, o agent.OrgFolder, nudges *orgNudges) (string, agent.Runner, error) {
	s, err := orgSession(e, c, o)
	if err != nil {
		return "", nil, err
	}
	s.out, s.tokenSaidElsewhere = out, true
	s.reported = func(r agent.Report) { nudges.pulled(o.Repo, r) }
	return agent.RunnerKey(s.dir, s.slug, s.server, s.flags.token, s.flags.tokenFile, nil), s.runner(rf), nil
}

// oneShotOrgs runs a one-shot command's cycle on the org memories of the
// checkout's repository (before its team folder, whose block then carries
// what they pulled), heading each report; nil without a checkout's team
// folder (--dir, --personal) or when its repository cannot be told.
func oneShotOrgs(ctx context.Context, e *cliEnv, name string, c commonFlags, o engineOpts,
	op func(*agent.Engine, context.Context) (agent.Report, error)) []error {
	if c.personal || c.dir != "" {
		return nil
	}
	team, err := newSession(e, name, c)
	if err != nil {
		return nil // the team folder's run says why
	}
	var errs []error
	for _, org := range orgFoldersOf(e, team.slug) {
		s, err := orgSession(e, c, org)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !c.json {
			fmt.Fprintf(e.Stdout, "org memory %s (%s):\n", s.slug, s.dir)
		}
		errs = append(errs, runOneShot(ctx, s, o, op))
	}
	return errs
}

// orgMemoryRow is one org memory of a checkout in status: where it is
// synced and how far.
type orgMemoryRow struct {
	Repo     string     `json:"repo"`
	Dir      string     `json:"dir"`
	LastSync *time.Time `json:"lastSync"`
	Version  int64      `json:"version"`
	Running  bool       `json:"agentRunning"`
	Error    string     `json:"error,omitempty"`
}

// orgMemoryRows reads the status of the org memories of slug from their
// journals and folder locks, without asking the server. c is the
// checkout's flags.
func orgMemoryRows(ctx context.Context, e *cliEnv, c commonFlags, slug string) []orgMemoryRow {
	out := []orgMemoryRow{}
	for _, o := range orgFoldersOf(e, slug) {
		row := orgMemoryRow{Repo: o.Repo, Dir: o.Dir}
		s, err := orgSession(e, c, o)
		if err == nil {
			var st *agent.Status
			st, err = agent.ReadStatus(ctx, agent.StatusOptions{Repo: s.slug, Dir: s.dir, StateDir: s.stateDir, Server: s.server, Explain: s.explain})
			if err == nil {
				row.LastSync, row.Version, row.Running = st.LastSync, st.Version, st.AgentRunning
			}
		}
		if err != nil {
			row.Error = err.Error()
		}
		out = append(out, row)
	}
	return out
}

// printOrgMemory writes the org memory lines of status.
func printOrgMemory(w io.Writer, rows []orgMemoryRow) {
	for _, r := range rows {
		line := "never synced (teammem-agent sync, or run with the checkout registered)"
		switch {
		case r.Error != "":
			line = r.Error
		case r.LastSync != nil:
			line = fmt.Sprintf("last sync %s, version %d", r.LastSync.Local().Format(time.RFC3339), r.Version)
		}
		if r.Running {
			line += "; an agent keeps it in step"
		}
		fmt.Fprintf(w, "org mem:   %s in %s: %s\n", r.Repo, r.Dir, line)
	}
}

// orgNudges tells the engines of the team folders whose blocks carry an
// org memory that its engine pulled, so that they update their blocks at
// once (agent.BlockConfig.OrgChanged). It lives as long as run, across
// reloads of the configuration: an engine kept running keeps its channel.
type orgNudges struct {
	mu sync.Mutex
	ch map[string]map[string]chan struct{} // org memory → team folder → channel
}

// channel returns the channel of team folder dir for the org memories
// orgs (one channel for all of them), made at the first call.
func (n *orgNudges) channel(dir string, orgs []agent.OrgFolder) <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch == nil {
		n.ch = map[string]map[string]chan struct{}{}
	}
	var c chan struct{}
	for _, o := range orgs {
		if c = n.ch[o.Repo][dir]; c != nil {
			break
		}
	}
	if c == nil {
		c = make(chan struct{}, 1)
	}
	for _, o := range orgs {
		if n.ch[o.Repo] == nil {
			n.ch[o.Repo] = map[string]chan struct{}{}
		}
		n.ch[o.Repo][dir] = c
	}
	return c
}

// pulled tells every team folder whose block carries org that its engine
// pulled something; a folder already told and not yet updated is left.
func (n *orgNudges) pulled(org string, r agent.Report) {
	if len(r.Pulled)+len(r.Deleted)+len(r.Conflicts) == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, c := range n.ch[org] {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}
