package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/teammem/teammem/client/agent"
	"github.com/teammem/teammem/memcore"
)

// engineOpts tunes the engine of one command.
type engineOpts struct {
	watch                    bool
	debounce, maxDelay, poll time.Duration
	shutdownTimeout          time.Duration
	allowMassDelete          bool
	reseed                   bool
	onReport                 func(agent.Report)
	// follow makes run follow the server's event stream, polling every
	// safetyPoll while it is connected; its state is kept beside the
	// journal for status.
	follow     bool
	safetyPoll time.Duration
}

// syncer is an engine with the resources it holds: the lock of its team
// folder.
type syncer struct {
	eng          *agent.Engine
	journal      *agent.Journal
	lock         *agent.FolderLock
	removeStream func()
}

// openSyncer locks the team folder (which also guards its journals: a
// journal belongs to one folder), removes temporary files a crash left in
// the folder, opens the journal and builds the engine. Close releases the
// lock.
func openSyncer(s *session, o engineOpts) (*syncer, error) {
	c, err := s.newClient()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the team folder: %w", err)
	}
	lock, err := agent.LockFolder(s.dir)
	if err != nil {
		return nil, err
	}
	sy := &syncer{lock: lock}
	if err := sy.open(s, c, o); err != nil {
		lock.Release()
		return nil, err
	}
	return sy, nil
}

// open cleans the folder, reads the journal and builds the engine.
func (sy *syncer) open(s *session, remote agent.Remote, o engineOpts) error {
	removed, err := memcore.CleanTemp(s.dir)
	if len(removed) > 0 {
		s.log.Info("removed temporary files left by a crash", "count", len(removed))
	}
	if err != nil {
		s.log.Warn("could not remove every temporary file", "err", err)
	}
	j, err := agent.OpenServerJournal(s.stateDir, s.server, s.serverID(remote), s.slug, s.dir)
	switch {
	case errors.Is(err, agent.ErrCorruptJournal):
		s.log.Warn("starting from an empty journal: nothing is deleted, local-only files are pushed, server files written", "err", err)
	case err != nil:
		return fmt.Errorf("open the journal: %w", err)
	}
	host, _ := os.Hostname()
	sy.journal = j
	cfg := agent.Config{
		Remote: withProgress(remote, s.e.Stderr, s.flags.json), Repo: s.slug, Dir: s.dir, Journal: j, Host: host,
		Rails: agent.Rails{AllowMassDelete: o.allowMassDelete},
		Watch: o.watch, Debounce: o.debounce, MaxDelay: o.maxDelay, Poll: o.poll,
		ShutdownTimeout: o.shutdownTimeout, OnReport: o.onReport, Reseed: o.reseed,
		Block: agent.BlockConfig{Checkouts: s.checkouts, Targets: s.targets, MCP: s.mcpInstalled, Remove: s.flags.noInject, StaleAfter: s.flags.staleAfter},
	}
	if o.follow {
		if events, ok := remote.(agent.EventSource); ok {
			var onState func(agent.StreamState)
			onState, sy.removeStream = agent.StreamStateWriter(agent.StreamStatePath(j.Path()))
			cfg.Events, cfg.SafetyPoll, cfg.Follow = events, o.safetyPoll, agent.FollowOptions{OnState: onState}
		}
	}
	sy.eng, err = agent.New(cfg)
	return err
}

// identityTimeout bounds asking the server for its identity at start: an
// unreachable server is then named by the journal last kept for its URL.
const identityTimeout = 5 * time.Second

// serverID returns the identity of the session's server (see
// agent.ResolveServerID), "" when it has none or remote cannot tell.
func (s *session) serverID(remote agent.Remote) string {
	id, ok := remote.(agent.ServerIdentifier)
	if !ok {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), identityTimeout)
	defer cancel()
	return agent.ResolveServerID(ctx, id, s.stateDir, s.server, s.slug, s.dir)
}

// Close removes the stream state and releases the lock.
func (sy *syncer) Close() {
	if sy.removeStream != nil {
		sy.removeStream()
	}
	sy.lock.Release()
}

// massDeleteFlag adds --allow-mass-delete to fs.
func massDeleteFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("allow-mass-delete", false, "allow deleting more than half of the repo's entries at once (on the server; locally, files the server lacks without a tombstone)")
}
