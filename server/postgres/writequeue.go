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
	mu     sync.Mutex
	queued map[string][]*job    // present while the repository's runner runs
	known  map[string]committed // the last state this process committed, per repository
	seq    int64                // commits of this process
	wg     sync.WaitGroup
	// largest is the most writes one group has held (read by tests).
	largest atomic.Int64
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

// submit queues j and starts its repository's runner when none runs; run
// applies one group and returns the state it committed (ok false when it
// committed nothing).
func (q *writeQueues) submit(j *job, run func([]*job, committed) (server.RepoState, bool)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.queued == nil {
		q.queued, q.known = map[string][]*job{}, map[string]committed{}
	}
	repo := j.w.Repo
	jobs, running := q.queued[repo]
	j.seq = q.seq
	q.queued[repo] = append(jobs, j)
	if !running {
		q.wg.Add(1)
		go q.runner(repo, run)
	}
}

// runner applies repo's queued writes, up to maxGroup at a time, until
// none is left.
func (q *writeQueues) runner(repo string, run func([]*job, committed) (server.RepoState, bool)) {
	defer q.wg.Done()
	for {
		jobs, last := q.next(repo)
		if len(jobs) == 0 {
			return
		}
		if n := int64(len(jobs)); n > q.largest.Load() {
			q.largest.Store(n)
		}
		if st, ok := run(jobs, last); ok {
			q.commit(st)
		}
	}
}

// next takes the next group of repo's queued writes and what is known of
// the repository; with none left the runner ends (under the same lock, so
// a write submitted later starts a new one).
func (q *writeQueues) next(repo string) ([]*job, committed) {
	q.mu.Lock()
	defer q.mu.Unlock()
	queued := q.queued[repo]
	if len(queued) == 0 {
		delete(q.queued, repo)
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
	q.queued[repo] = rest
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

// commit records st as committed by this process, evicting an arbitrary
// repository's record when full.
func (q *writeQueues) commit(st server.RepoState) {
	q.mu.Lock()
	defer q.mu.Unlock()
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
func (q *writeQueues) last(repo string) (server.RepoState, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	c, ok := q.known[repo]
	return c.state, ok
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
