package postgres

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/teammem/teammem/server"
)

// maxGroup bounds how many writes one transaction applies together.
const maxGroup = 64

// job is one Apply waiting in its repository's queue.
type job struct {
	ctx  context.Context // the caller's, bounded: a job whose caller gave up is left out
	w    server.Write
	seq  int64 // the repository's commit count in this process when the job was queued
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
	repos map[string]*queue // present while the repository's runner runs
	wg    sync.WaitGroup
	// largest is the most writes one group has held (read by tests).
	largest atomic.Int64
}

// queue is one repository's writes waiting for its runner, and what the
// runner last committed.
type queue struct {
	jobs []*job
	// seq counts the runner's commits; state is the repository's state
	// after the last one.
	seq   int64
	state server.RepoState
}

// committed is what a group knows before it locks: the state the
// repository had after the last commit of this process's runner, and how
// many commits preceded it (see job.seq).
type committed struct {
	seq   int64
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
	if q.repos == nil {
		q.repos = map[string]*queue{}
	}
	repo := j.w.Repo
	rq, running := q.repos[repo]
	if !running {
		rq = &queue{}
		q.repos[repo] = rq
		q.wg.Add(1)
		go q.runner(repo, rq, run)
	}
	j.seq = rq.seq
	rq.jobs = append(rq.jobs, j)
}

// runner applies repo's queued writes, up to maxGroup at a time, until
// none is left.
func (q *writeQueues) runner(repo string, rq *queue, run func([]*job, committed) (server.RepoState, bool)) {
	defer q.wg.Done()
	for {
		jobs, last := q.next(repo, rq)
		if len(jobs) == 0 {
			return
		}
		if n := int64(len(jobs)); n > q.largest.Load() {
			q.largest.Store(n)
		}
		if st, ok := run(jobs, last); ok {
			q.mu.Lock()
			rq.seq, rq.state = rq.seq+1, st
			q.mu.Unlock()
		}
	}
}

// next takes the next group of repo's queued writes; with none left the
// runner ends (under the same lock, so a write submitted later starts a
// new one).
func (q *writeQueues) next(repo string, rq *queue) ([]*job, committed) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(rq.jobs) == 0 {
		delete(q.repos, repo)
		return nil, committed{}
	}
	n := min(len(rq.jobs), maxGroup)
	jobs := rq.jobs[:n:n]
	rq.jobs = rq.jobs[n:]
	if len(rq.jobs) == 0 {
		rq.jobs = nil
	}
	return jobs, committed{seq: rq.seq, state: rq.state}
}

// wait returns once every runner has ended.
func (q *writeQueues) wait() { q.wg.Wait() }

// groupContext is the context of a group's statements: the first job's
// values, no cancellation (a caller giving up must not abort the others'
// transaction), and the latest deadline of the jobs.
func groupContext(jobs []*job) (context.Context, context.CancelFunc) {
	var latest time.Time
	for _, j := range jobs {
		if d, ok := j.ctx.Deadline(); ok && d.After(latest) {
			latest = d
		}
	}
	ctx := context.WithoutCancel(jobs[0].ctx)
	if latest.IsZero() {
		return context.WithTimeout(ctx, DefaultCallTimeout)
	}
	return context.WithDeadline(ctx, latest)
}
