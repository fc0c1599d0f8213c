package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/teammem/teammem/client/agent"
	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/client/userconfig"
)

func init() {
	register(command{Name: "status", Summary: "show the repo, folders, server, last sync, pending changes and conflicts", Run: runStatus})
}

// runStatus is `teammem-agent status`: of the repository the flags name,
// else of every registered checkout, else of the working directory's.
func runStatus(ctx context.Context, e *cliEnv, args []string) error {
	fs := newFlagSet("status", "status [flags]", e.Stdout)
	var c commonFlags
	c.register(fs)
	c.registerPersonal(fs, personalUsage)
	if err := parseFlags(fs, args, e.Getenv); err != nil {
		return helpOK(err)
	}
	cc := c
	uc, err := cc.applyConfig(e)
	if err != nil {
		return err
	}
	if c.repo == "" && c.repoDir == "" && c.dir == "" && len(uc.Checkouts) > 0 {
		return statusRegistered(ctx, e, c, uc)
	}
	st, s, err := readStatus(ctx, e, c)
	if err != nil {
		return err
	}
	var rows []agentMemoryRow
	var orgs []orgMemoryRow
	if !c.personal && c.dir == "" {
		dir, _ := repoDir(e, c)
		rows = checkoutAgentMemory(e, dir, s.slug, uc)
		orgs = orgMemoryRows(ctx, e, c, s.slug)
	}
	if c.json {
		s.out.object(statusWithAgents{st, rows, orgs})
	} else {
		printStatus(s, st)
		printOrgMemory(e.Stdout, orgs)
		printAgentMemory(e.Stdout, rows)
	}
	return nil
}

// checkoutAgentMemory lists the agent memories of the checkout at dir (its
// repository's top when it is one) for status.
func checkoutAgentMemory(e *cliEnv, dir, slug string, uc userconfig.Config) []agentMemoryRow {
	if root, err := gitremote.FindRepo(dir); err == nil {
		dir = root
	}
	personal := uc.Personal
	for _, co := range uc.Checkouts {
		if co.Path == dir {
			personal = uc.PersonalFor(co)
		}
	}
	return agentMemoryRows(e, dir, slug, uc, personal)
}

// statusRegistered prints the status of every registered checkout, and of
// its personal memory when that is synced: with --json one object
// {"checkouts": [...]}, each a status or {"checkout", "error"}.
func statusRegistered(ctx context.Context, e *cliEnv, c commonFlags, uc userconfig.Config) error {
	var all []any
	var folders []commonFlags
	for _, co := range uc.Checkouts {
		cc := c
		cc.repoDir, cc.repo = co.Path, co.Repo
		folders = append(folders, cc)
		if uc.PersonalFor(co) && !c.personal {
			cc.personal = true
			folders = append(folders, cc)
		}
	}
	for i, cc := range folders {
		st, s, err := readStatus(ctx, e, cc)
		switch {
		case c.json && err != nil:
			all = append(all, map[string]string{"checkout": cc.repoDir, "error": err.Error()})
		case c.json && !cc.personal:
			all = append(all, statusWithAgents{st, checkoutAgentMemory(e, cc.repoDir, s.slug, uc), orgMemoryRows(ctx, e, cc, s.slug)})
		case c.json:
			all = append(all, st)
		default:
			if i > 0 {
				fmt.Fprintln(e.Stdout)
			}
			fmt.Fprintf(e.Stdout, "checkout:  %s\n", cc.repoDir)
			if err != nil {
				fmt.Fprintf(e.Stdout, "error:     %v\n", err)
				continue
			}
			printStatus(s, st)
			if !cc.personal {
				printOrgMemory(e.Stdout, orgMemoryRows(ctx, e, cc, s.slug))
				printAgentMemory(e.Stdout, checkoutAgentMemory(e, cc.repoDir, s.slug, uc))
			}
		}
	}
	if c.json {
		newPrinter(e, "status", true).object(map[string]any{"checkouts": all})
	}
	return nil
}

// readStatus reads the status of the repository the flags name. It only
// reads: the journal (without touching it), the folder lock, the folder
// and, when a server is set, its hashes (agent.ReadStatus).
func readStatus(ctx context.Context, e *cliEnv, c commonFlags) (*agent.Status, *session, error) {
	s, err := newSession(e, "status", c)
	if err != nil {
		return nil, nil, err
	}
	o := agent.StatusOptions{Repo: s.slug, Dir: s.dir, StateDir: s.stateDir, Server: s.server, Explain: s.explain,
		Checkouts: s.checkouts, Targets: s.targets, NoInject: s.flags.noInject, Exclude: s.exclude, MemDir: s.memDir,
		TokenExpiry: s.tokenExpiry, Relogin: s.relogin()}
	var probeErr error
	if s.server != "" {
		cl, err := s.newClient()
		if err != nil {
			probeErr = err
		} else {
			o.Remote = cl
		}
	}
	st, err := agent.ReadStatus(ctx, o)
	if errors.Is(err, agent.ErrSeveralServers) {
		return nil, nil, errUsage("%v", err)
	}
	if err != nil {
		return nil, nil, err
	}
	if probeErr != nil {
		st.ServerError = probeErr.Error()
	}
	return st, s, nil
}

// printStatus writes the status for a person.
func printStatus(s *session, st *agent.Status) {
	w := s.e.Stdout
	fmt.Fprintf(w, "repo:      %s\nfolder:    %s\nstate:     %s\n", st.Repo, st.Dir, st.StateDir)
	fmt.Fprintf(w, "server:    %s\n", orDefault(st.Server, "(none; set --server or TEAMMEM_SERVER)"))
	switch {
	case st.ServerError != "":
		fmt.Fprintf(w, "           %s\n", st.ServerError)
	case st.ServerVersion != nil:
		fmt.Fprintf(w, "           version %d (%s)\n", *st.ServerVersion, shortSum(st.ServerChecksum))
	}
	if st.ServerLost != "" {
		fmt.Fprintf(w, "           %s\n", st.ServerLost)
	}
	if st.Token != "" {
		fmt.Fprintf(w, "token:     %s\n", st.Token)
	}
	if line := s.signInLine(); line != "" {
		fmt.Fprintf(w, "signed in: %s\n", line)
	}
	running := "no"
	if st.AgentRunning {
		running = "yes"
		if st.AgentPID > 0 {
			running = fmt.Sprintf("yes, pid %d holds the folder", st.AgentPID)
		}
	}
	fmt.Fprintf(w, "agent:     running: %s\n", running)
	if c := st.Consolidation; c != nil {
		line := fmt.Sprintf("in progress, pid %d since %s", c.PID, c.Since.Local().Format(time.RFC3339))
		if c.PushesHeld {
			line += ": this folder's changes are held until it ends, then pushed as one write"
		}
		fmt.Fprintf(w, "consolidation: %s\n", line)
	}
	if st.Stream != nil {
		printStream(w, st.Stream)
	}
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
		fmt.Fprintf(w, "  %-8s %q%s\n", p.Change, p.Path, awaitingNote(st.Awaiting, p.Path))
	}
	fmt.Fprintf(w, "conflicts: %d\n", len(st.Conflicts))
	for _, c := range st.Conflicts {
		if strings.Contains(c, agent.RejectedMarker) {
			fmt.Fprintf(w, "  %q (your text of a rejected proposal; the reviewer's comment heads it)\n", c)
		} else {
			fmt.Fprintf(w, "  %q\n", c)
		}
	}
	for _, sk := range st.Skipped {
		fmt.Fprintf(w, "skipped:   %q: %s\n", sk.Path, sk.Reason)
	}
	for _, b := range st.TeamBlock {
		fmt.Fprintf(w, "block:     %s (%s): %s\n", filepath.Join(b.Checkout, filepath.FromSlash(b.File)), b.Assistant, b.State)
		if b.Fix != "" {
			fmt.Fprintf(w, "           to fix: %s\n", b.Fix)
		}
	}
	if st.StaleReferences > 0 {
		fmt.Fprintf(w, "stale:     %s of team memories not in HEAD (teammem-agent memory lint names them)\n",
			plural(st.StaleReferences, "code reference", "code references"))
	}
}

// printStream writes the running agent's event stream state.
func printStream(w io.Writer, st *agent.StreamState) {
	line := st.State
	if st.ConnectedSince != nil {
		line += " since " + st.ConnectedSince.Local().Format(time.RFC3339)
	}
	if st.LastEvent != nil {
		line += fmt.Sprintf(", last event %s (version %d)", st.LastEvent.Local().Format(time.RFC3339), st.LastVersion)
	}
	line += ", " + plural(st.Reconnects, "reconnect", "reconnects")
	fmt.Fprintf(w, "stream:    %s\n", line)
	if st.Error != "" {
		fmt.Fprintf(w, "           %s\n", st.Error)
	}
}

// awaitingNote is ": awaiting review (#ID)" for a pending path held in an
// open proposal, "" otherwise.
func awaitingNote(awaiting []agent.Awaiting, path string) string {
	for _, a := range awaiting {
		if a.Path == path {
			return fmt.Sprintf(": awaiting review (#%d)", a.Proposal)
		}
	}
	return ""
}
