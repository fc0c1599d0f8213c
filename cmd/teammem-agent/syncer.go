package main

import (
	"flag"
	"os"
	"time"

	"github.com/teammem/teammem/client/agent"
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
	// safetyPoll while it is connected.
	follow     bool
	safetyPoll time.Duration
}

// openSyncer starts the session's engine (agent.Open: lock, clean, journal,
// engine); Close releases the lock.
func openSyncer(s *session, o engineOpts) (*agent.Syncer, error) {
	c, err := s.newClient()
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	cfg := agent.Config{
		Remote: withProgress(c, s.e.Stderr, s.flags.json), Repo: s.slug, Dir: s.dir, Host: host, Head: s.headReader(),
		Rails: agent.Rails{AllowMassDelete: o.allowMassDelete}, Scan: agent.ScanOptions{Exclude: s.exclude},
		Watch: o.watch, Debounce: o.debounce, MaxDelay: o.maxDelay, Poll: o.poll, SafetyPoll: o.safetyPoll,
		ShutdownTimeout: o.shutdownTimeout, OnReport: o.onReport, Reseed: o.reseed,
		Consolidation: agent.ConsolidationWatch{MemDir: s.memDir},
		Block: agent.BlockConfig{Checkouts: s.checkouts, Targets: s.targets, MCP: s.mcpInstalled, Remove: s.flags.noInject,
			StaleAfter: s.flags.staleAfter, Hold: s.holdBlocks, Orgs: s.orgs,
			OrgChanged: s.orgChanged},
		TokenExpiry: s.tokenExpiry, Relogin: s.relogin(),
	}
	if s.config != "" {
		cfg.Block.Watch = []string{s.config}
	}
	return agent.Open(cfg, agent.Startup{Server: s.server, StateDir: s.stateDir, Client: c, Follow: o.follow, Log: s.log})
}

// massDeleteFlag adds --allow-mass-delete to fs.
func massDeleteFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("allow-mass-delete", false, "allow deleting more than half of the repo's entries at once (on the server; locally, files the server lacks without a tombstone)")
}
