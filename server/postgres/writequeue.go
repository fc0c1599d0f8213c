package postgres

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/teammem/teammem/server"
)

// maxGroup bounds how many writes one transaction applies together, and
// maxGroupBytes the content they put (beyond the first write's): a group's
// contents travel in one array per statement.
const (
	maxGroup      = 64
	maxGroupBytes = 8 << 20
)

// maxKnown bounds how many repositories' last committed states a process
// keeps (see committed).
const maxKnown = 512

// job is one Apply waiting in its repository's queue.
type job struct {
	ctx  context.Context // the caller's, bounded: a job whose caller gave up is left out
	w    server.Write
	seq  int64 // the process's commit count when the job was queued
	res  server.WriteResult
	err  error
	done chan struct{} // closed once res and err are final
}

// writeQueues holds, per repository, the writes waiting for its runner: a
// goroutine that exists while the repository has writes queued or in
// flight, and applies them group by group. Writes of one repository then
// share transactions instead of queueing one by one on the row lock, and
// writes of different repositories run in parallel.
type writeQueues struct {
	mu    sync.Mutex
	runs  map[string]*run      // present while the repository's runner runs
	known map[string]committed // the last state this process committed, per repository
	seq   int64                // commits of this process
	wg    sync.WaitGroup
	// largest is the most writes one group has held (read by tests).
	largest atomic.Int64
}

// run is a repository's runner: the writes waiting for it and how far it
// got, for settle.
type run struct {
	queued    []*job
	submitted int64         // writes submitted since the runner started
	resolved  int64         // of those, the ones whose group ran (and its commit is recorded)
	progress  chan struct{} // closed, and replaced, when a group is resolved or the runner ends
}

// committed is what a group knows before it locks: the state a repository
// had after this process's last commit of it, and that commit's number.
type committed struct {
	seq   int64 // 0: nothing known
	state server.RepoState
}

// stale reports the precondition error of j against c when c's commit
// came after j was queued: the state was then current during j's request,
// so refusing j against it is as if j had arrived at that moment, and
// nothing needs to be read or locked.
func (c committed) stale(j *job) error {
	if c.seq == 0 || j.seq >= c.seq {
		return nil
	}
	return server.Preconditions{IfMatch: j.w.IfMatch, IfNoneMatch: j.w.IfNoneMatch}.Check(c.state)
}

// submit queues j and starts its repository's runner when none runs;
// apply applies one group and returns the state it committed (ok false
// when it committed nothing).
func (q *writeQueues) submit(j *job, apply func([]*job, committed) (server.RepoState, bool)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.runs == nil {
		q.runs, q.known = map[string]*run{}, map[string]committed{}
	}
	repo := j.w.Repo
	r := q.runs[repo]
	if r == nil {
		r = &run{progress: make(chan struct{})}
		q.runs[repo] = r
		q.wg.Add(1)
		go q.runner(repo, apply)
	}
	j.seq = q.seq
	r.queued = append(r.queued, j)
	r.submitted++
}

// runner applies repo's queued writes, up to maxGroup at a time, until
// none is left.
func (q *writeQueues) runner(repo string, apply func([]*job, committed) (server.RepoState, bool)) {
	defer q.wg.Done()
	for {
		jobs, last := q.next(repo)
		if len(jobs) == 0 {
			return
		}
		if n := int64(len(jobs)); n > q.largest.Load() {
			q.largest.Store(n)
		}
		st, ok := apply(jobs, last)
		q.resolve(repo, len(jobs), st, ok)
	}
}

// next takes the next group of repo's queued writes and what is known of
// the repository; with none left the runner ends (under the same lock, so
// a write submitted later starts a new one).
func (q *writeQueues) next(repo string) ([]*job, committed) {
	q.mu.Lock()
	defer q.mu.Unlock()
	r := q.runs[repo]
	queued := r.queued
	if len(queued) == 0 {
		delete(q.runs, repo)
		close(r.progress)
		return nil, committed{}
	}
	n, size := 1, putBytes(queued[0].w)
	for ; n < min(len(queued), maxGroup); n++ {
		if size += putBytes(queued[n].w); size > maxGroupBytes {
			break
		}
	}
	rest := queued[n:]
	if len(rest) == 0 {
		rest = nil
	}
	r.queued = rest
	return queued[:n:n], q.known[repo]
}

// putBytes is the content a write puts.
func putBytes(w server.Write) int {
	n := 0
	for _, p := range w.Puts {
		n += len(p.Content)
	}
	return n
}

// resolve records that a group of n writes of repo ran and, when it
// committed (ok), st as the state this process last committed, then wakes
// settle's waiters.
func (q *writeQueues) resolve(repo string, n int, st server.RepoState, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if ok {
		q.commitLocked(st)
	}
	r := q.runs[repo]
	r.resolved += int64(n)
	close(r.progress)
	r.progress = make(chan struct{})
}

// settle waits until every write of repo submitted before it was called
// has been resolved, and returns what is then known of the repository.
func (q *writeQueues) settle(ctx context.Context, repo string) (committed, error) {
	q.mu.Lock()
	r := q.runs[repo]
	if r == nil {
		defer q.mu.Unlock()
		return q.known[repo], nil
	}
	target := r.submitted
	for r.resolved < target && q.runs[repo] == r {
		wake := r.progress
		q.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return committed{}, ctx.Err()
		}
		q.mu.Lock()
	}
	defer q.mu.Unlock()
	return q.known[repo], nil
}

// commitLocked records st as committed by this process, evicting an
// arbitrary repository's record when full; the caller holds mu.
func (q *writeQueues) commitLocked(st server.RepoState) {
	if _, ok := q.known[st.Repo]; !ok && len(q.known) >= maxKnown {
		for k := range q.known {
			delete(q.known, k)
			break
		}
	}
	q.seq++
	q.known[st.Repo] = committed{seq: q.seq, state: st}
}

// last returns the state this process last committed for repo, if it
// keeps one.
func (q *writeQueues) last(repo string) (committed, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	c, ok := q.known[repo]
	return c, ok
}

// wait returns once every runner has ended.
func (q *writeQueues) wait() { q.wg.Wait() }

// sharedContext is the context of work done for several callers at once
// (a group's statements, a coalesced read): the first caller's values, no
// cancellation (one caller giving up must not fail the others), and the
// latest of the callers' deadlines.
func sharedContext[T any](items []T, ctxOf func(T) context.Context) (context.Context, context.CancelFunc) {
	var latest time.Time
	for _, it := range items {
		if d, ok := ctxOf(it).Deadline(); ok && d.After(latest) {
			latest = d
		}
	}
	ctx := context.WithoutCancel(ctxOf(items[0]))
	if latest.IsZero() {
		return context.WithTimeout(ctx, DefaultCallTimeout)
	}
	return context.WithDeadline(ctx, latest)
}
