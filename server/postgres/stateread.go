package postgres

import (
	"context"
	"sync"

	"github.com/teammem/teammem/server"
)

// stateReads coalesces the reads of repository rows (RepoState: every GET's
// first step, every conditional PUT's precondition). A read joins its
// repository's next query; a reader goroutine, running while reads of the
// repository wait, sends one query at a time and answers with it every read
// that joined before that query was sent. Each read is thus answered with a
// state read after it arrived, as a query of its own would be, and a burst
// of reads (a team's probes, the writers and refused writers of a
// contended repository) costs one round trip instead of one each.
//
// A write this process commits answers the reads of its repository waiting
// since before its transaction was sent (see settle): the committed state
// was current at the commit, while they waited.
type stateReads struct {
	mu      sync.Mutex
	waiting map[string][]*stateRead // present while the repository's reader runs
	joined  uint64                  // reads joined so far; a read's seq is the count with it
	wg      sync.WaitGroup
}

// stateRead is one RepoState waiting for its repository's next query.
type stateRead struct {
	ctx  context.Context // the caller's, bounded: a read whose caller gave up is left out
	seq  uint64
	st   server.RepoState
	err  error
	done chan struct{} // closed once st and err are final
}

// read returns repo's state as query returns it, from a query sent after
// read was called, shared with the reads of repo waiting at that moment.
func (r *stateReads) read(ctx context.Context, repo string, query func(context.Context, string) (server.RepoState, error)) (server.RepoState, error) {
	sr := &stateRead{ctx: ctx, done: make(chan struct{})}
	r.mu.Lock()
	if r.waiting == nil {
		r.waiting = map[string][]*stateRead{}
	}
	r.joined++
	sr.seq = r.joined
	reads, running := r.waiting[repo]
	r.waiting[repo] = append(reads, sr)
	if !running {
		r.wg.Add(1)
		go r.reader(repo, query)
	}
	r.mu.Unlock()
	select {
	case <-sr.done:
		return sr.st, sr.err
	case <-ctx.Done():
		return server.RepoState{}, wrap("read repository", ctx.Err())
	}
}

// reader queries repo's state for the reads waiting, batch by batch, until
// none is left.
func (r *stateReads) reader(repo string, query func(context.Context, string) (server.RepoState, error)) {
	defer r.wg.Done()
	for {
		reads := r.take(repo)
		if reads == nil {
			return
		}
		if len(reads) == 0 { // every caller gave up already
			continue
		}
		ctx, cancel := sharedContext(reads, func(sr *stateRead) context.Context { return sr.ctx })
		st, err := query(ctx, repo)
		cancel()
		for _, sr := range reads {
			sr.st, sr.err = st, err
			close(sr.done)
		}
	}
}

// take returns the reads of repo waiting now whose callers still wait
// (possibly none), or nil when none waits at all: the reader then ends,
// under the same lock, so a read arriving later starts a new one.
func (r *stateReads) take(repo string) []*stateRead {
	r.mu.Lock()
	defer r.mu.Unlock()
	reads := r.waiting[repo]
	if len(reads) == 0 {
		delete(r.waiting, repo)
		return nil
	}
	r.waiting[repo] = reads[len(reads):] // empty, and still marks the reader as running
	live := reads[:0]
	for _, sr := range reads {
		if sr.ctx.Err() == nil {
			live = append(live, sr)
		}
	}
	return live
}

// mark returns the reads joined so far, for settle: a caller takes it
// before sending a transaction.
func (r *stateReads) mark() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.joined
}

// settle answers with st the reads of repo that joined up to mark and wait
// for their query still: st is the state a transaction sent after mark
// committed (or confirmed under the row lock), current at a moment during
// each of those reads.
func (r *stateReads) settle(repo string, mark uint64, st server.RepoState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	reads := r.waiting[repo]
	rest := reads[:0]
	for _, sr := range reads {
		if sr.seq > mark {
			rest = append(rest, sr)
			continue
		}
		sr.st = st
		close(sr.done)
	}
	if _, running := r.waiting[repo]; running {
		clear(reads[len(rest):])
		r.waiting[repo] = rest
	}
}

// wait returns once every reader has ended.
func (r *stateReads) wait() { r.wg.Wait() }
