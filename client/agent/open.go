package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/teammem/teammem/memcore"
)

// Startup says where one team folder's engine keeps its state and how it
// talks to its server, beyond the engine's Config.
type Startup struct {
	// Server is the server URL as given: the journal's name when the
	// server tells no identity.
	Server   string
	StateDir string
	// Client is the server as the wire sees it (Config.Remote may wrap
	// it): asked for the server's identity and, with Follow, for its event
	// stream.
	Client Remote
	// Follow makes the engine follow Client's event stream (when it has
	// one), polling every Config.SafetyPoll while it is connected; the
	// stream's state is kept beside the journal for status.
	Follow bool
	Log    *slog.Logger
}

// Syncer is an engine with what it holds: the lock of its team folder and
// the stream state file.
type Syncer struct {
	Engine       *Engine
	Journal      *Journal
	lock         *FolderLock
	removeStream func()
}

// Open starts one team folder's engine in the order that keeps it safe:
// create the folder, take its lock (which also guards its journals: a
// journal belongs to one folder), remove the temporary files a crash left
// in it, ask the server for its identity, open the journal of that
// identity, then build the engine. cfg's Journal, Events and Follow are
// filled here. Close releases what Open took.
func Open(cfg Config, st Startup) (*Syncer, error) {
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the team folder: %w", err)
	}
	lock, err := LockFolder(cfg.Dir)
	if err != nil {
		return nil, err
	}
	sy := &Syncer{lock: lock}
	if err := sy.open(cfg, st); err != nil {
		lock.Release()
		return nil, err
	}
	return sy, nil
}

// open cleans the folder, reads the journal and builds the engine.
func (sy *Syncer) open(cfg Config, st Startup) error {
	log := st.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	removed, err := memcore.CleanTemp(cfg.Dir, cfg.Scan.Exclude...) // the folders below the folder that are not synced are not its own
	if len(removed) > 0 {
		log.Info("removed temporary files left by a crash", "count", len(removed))
	}
	if err != nil {
		log.Warn("could not remove every temporary file", "err", err)
	}
	j, err := OpenServerJournal(st.StateDir, st.Server, startupServerID(st, cfg.Repo, cfg.Dir), cfg.Repo, cfg.Dir)
	switch {
	case errors.Is(err, ErrCorruptJournal):
		log.Warn("starting from an empty journal: nothing is deleted, local-only files are pushed, server files written", "err", err)
	case err != nil:
		return fmt.Errorf("open the journal: %w", err)
	}
	sy.Journal, cfg.Journal = j, j
	if events, ok := st.Client.(EventSource); ok && st.Follow {
		var onState func(StreamState)
		onState, sy.removeStream = StreamStateWriter(StreamStatePath(j.Path()))
		cfg.Events, cfg.Follow = events, FollowOptions{OnState: onState}
	}
	sy.Engine, err = New(cfg)
	return err
}

// identityTimeout bounds asking the server for its identity at start: an
// unreachable server is then named by the journal last kept for its URL.
const identityTimeout = 5 * time.Second

// startupServerID returns the identity of st's server (see
// ResolveServerID), "" when it has none or its client cannot tell.
func startupServerID(st Startup, repo, dir string) string {
	id, ok := st.Client.(ServerIdentifier)
	if !ok {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), identityTimeout)
	defer cancel()
	return ResolveServerID(ctx, id, st.StateDir, st.Server, repo, dir)
}

// Close removes the stream state and releases the folder's lock.
func (sy *Syncer) Close() {
	if sy.removeStream != nil {
		sy.removeStream()
	}
	sy.lock.Release()
}
