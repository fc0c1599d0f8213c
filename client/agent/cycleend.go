package agent

import (
	"context"
	"time"

	"github.com/teammem/teammem/client/refcheck"
)

// cycleEnd is what a cycle leaves for the engine's subscribers: how it
// ended and read-only ways into the team folder as the engine sees it. It
// is valid during the calls of one cycle's end only.
type cycleEnd struct {
	// err is the cycle's error; nil when it succeeded.
	err error
	// idle says the cycle ended at once: neither the server's view nor
	// the folder changed, so neither did the index, the topics and what
	// the agent withholds.
	idle bool
	// unreadable says the last pull was refused the repository (403), or
	// the token (401) before the team folder was ever synced: no block.
	unreadable bool
	// unsynced, when not zero, says the server has refused the token
	// (401) for a while, and since when: the block, still rendered from
	// the team folder on disk, says it is out of date since then.
	unsynced time.Time
	// recheck says the periodic rescan ran since the last cycle's end: a
	// subscriber looks again at the files it keeps outside the folder.
	recheck bool
	// withheld reports whether the agent does not share key.
	withheld func(key string) bool
	// topics lists the team folder's topic files that the agent shares.
	topics func() []refcheck.Topic
	// live is the server's live entries, key → entry checksum; nil while
	// no pull loaded the server's view.
	live map[string]string
}

// subscriber consumes the end of every cycle that got as far as saving
// the journal, on the engine's goroutine, in the order subscribed; what it
// has to say it adds to r. Sync is the engine's; a subscriber keeps
// something else in step with its result (the checkouts' blocks, the
// server's stale-reference report) and owns the state it needs for that.
type subscriber interface {
	cycleDone(ctx context.Context, c *cycleEnd, r *Report)
}

// subscribe builds the subscribers cfg asks for: with block checkouts,
// the block writer and, for a Remote that takes them, the report of the
// stale references its check finds.
func (e *Engine) subscribe() {
	if e.cfg.Block.Checkouts == nil {
		return
	}
	refs := &staleRefs{dir: e.cfg.Dir, after: e.cfg.Block.StaleAfter, now: e.cfg.Now}
	e.subscribers = append(e.subscribers, &blockWriter{cfg: e.cfg.Block, repo: e.cfg.Repo, dir: e.cfg.Dir, refs: refs})
	if reporter, ok := e.cfg.Remote.(StaleReporter); ok {
		e.subscribers = append(e.subscribers, &staleReport{refs: refs, reporter: reporter, repo: e.cfg.Repo,
			journal: e.cfg.Journal, save: e.saveJournal})
	}
}

// publish hands the cycle's end to every subscriber.
func (e *Engine) publish(ctx context.Context, err error, r *Report) {
	e.lastErr = err
	c := e.cycleEnd(err)
	for _, s := range e.subscribers {
		s.cycleDone(ctx, c, r)
	}
}

// cycleEnd is what the subscribers are told of the engine's state after a
// cycle that ended with err.
func (e *Engine) cycleEnd(err error) *cycleEnd {
	c := &cycleEnd{err: err, idle: e.idle, unreadable: e.unreadable, recheck: e.recheck,
		withheld: e.withheld, topics: e.teamTopics}
	if e.view.loaded {
		c.live = e.view.live
	}
	if since := e.unsyncedSince(); !since.IsZero() {
		switch {
		case !e.synced():
			c.unreadable = true // the folder holds nothing the team shared
		case e.cfg.Now().Sub(since) >= UnsyncedNoteAfter:
			c.unsynced = since
		}
	}
	e.recheck = false
	return c
}
