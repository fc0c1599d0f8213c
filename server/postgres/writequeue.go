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
	repos map[string][]*job // present while the repository's runner runs
	wg    sync.WaitGroup
	// largest is the most writes one group has held (read by tests).
	largest atomic.Int64
}

// submit queues j and starts its repository's runner when none runs; run
// applies one group.
func (q *writeQueues) submit(j *job, run func([]*job)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.repos == nil {
		q.repos = map[string][]*job{}
	}
	repo := j.w.Repo
	queued, running := q.repos[repo]
	q.repos[repo] = append(queued, j)
	if !running {
		q.wg.Add(1)
		go q.runner(repo, run)
	}
}

// runner applies repo's queued writes, up to maxGroup at a time, until
// none is left.
func (q *writeQueues) runner(repo string, run func([]*job)) {
	defer q.wg.Done()
	for {
		jobs := q.next(repo)
		if len(jobs) == 0 {
			return
		}
		if n := int64(len(jobs)); n > q.largest.Load() {
			q.largest.Store(n)
		}
		run(jobs)
	}
}

// next takes the next group of repo's queued writes; with none left the
// runner ends (under the same lock, so a write submitted later starts a
// new one).
func (q *writeQueues) next(repo string) []*job {
	q.mu.Lock()
	defer q.mu.Unlock()
	queued := q.repos[repo]
	if len(queued) == 0 {
		delete(q.repos, repo)
		return nil
	}
	n := min(len(queued), maxGroup)
	rest := queued[n:]
	if len(rest) == 0 {
		rest = nil
	}
	q.repos[repo] = rest
	return queued[:n:n]
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
