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
type stateReads struct {
	mu      sync.Mutex
	waiting map[string][]*stateRead // present while the repository's reader runs
	wg      sync.WaitGroup
}

// stateRead is one RepoState waiting for its repository's next query.
type stateRead struct {
	ctx  context.Context // the caller's, bounded: a read whose caller gave up is left out
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
	r.waiting[repo] = nil // still present: the reader runs
	live := reads[:0]
	for _, sr := range reads {
		if sr.ctx.Err() == nil {
			live = append(live, sr)
		}
	}
	return live
}

// wait returns once every reader has ended.
func (r *stateReads) wait() { r.wg.Wait() }
