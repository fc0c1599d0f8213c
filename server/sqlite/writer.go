package sqlite

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

// maxBatch bounds how many queued jobs one transaction commits together.
const maxBatch = 64

// linger is how long the writer waits for more jobs before beginning a
// batch while writers run concurrently (see fill): more jobs per
// transaction cost less CPU per write, for at most this much added to a
// write's latency.
const linger = time.Millisecond

// ErrClosed is returned by writes submitted after Close.
var ErrClosed = errors.New("sqlite store is closed")

// job is one write the writer runs inside a batch transaction.
type job interface {
	// context is the caller's: a job whose context is done when its turn
	// comes is not run.
	context() context.Context
	// run performs the job inside b's transaction; a failure it returns is
	// its own and does not affect the other jobs of the batch.
	run(ctx context.Context, b *batch) error
	// finish delivers the outcome: err is the job's own failure or, when
	// it succeeded, the batch's (a failed COMMIT).
	finish(err error)
	// conditional reports whether the job is a write conditional on the
	// repository's state (If-Match, If-None-Match), which is never held
	// back (see fill).
	conditional() bool
}

// writer is the goroutine that alone uses the write pool's one connection: it takes the
// queued jobs, runs up to maxBatch of them in one BEGIN IMMEDIATE
// transaction, each change inside its own SAVEPOINT, commits once, and only
// then answers every caller. Writes are applied in queue order and each
// sees the ones before it, so the result is the same as running them one
// by one.
type writer struct {
	db    *DB
	stmts *writeStmts
	cache writeplan.Cache
	queue chan job
	quit  chan struct{}
	done  chan struct{}
	once  sync.Once
	// largest is the most jobs one batch has held, lingered how many
	// batches waited for more, rewound how many times the WAL was rewound
	// and rewindBusy how many times a reader kept it from being, merged
	// how many merge steps of the search index did work (read by tests).
	largest, lingered, rewound, rewindBusy, merged atomic.Int64
	// batches counts the batches run and batched the jobs they held;
	// ranAlone counts the batches run again one job at a time, refused
	// the conditional writes refused before their batch (refuseStale).
	batches, batched, ranAlone, refused atomic.Int64
	// indexed is poked after a commit that changed the search index or
	// marked keys for it, already marked or not (see DB.merger).
	indexed chan struct{}
}

func startWriter(ctx context.Context, db *DB) (*writer, error) {
	stmts, err := prepareWrites(ctx, db.write)
	if err != nil {
		return nil, err
	}
	w := &writer{db: db, stmts: stmts, queue: make(chan job, maxBatch),
		quit: make(chan struct{}), done: make(chan struct{}), indexed: make(chan struct{}, 1)}
	w.indexed <- struct{}{} // an index left unmerged by the last run is merged too
	go w.loop()
	return w, nil
}

// submit queues j and waits for its outcome. A job accepted by the writer
// is always finished, even when ctx ends meanwhile, so its caller learns
// whether it was committed.
func (w *writer) submit(ctx context.Context, j job, finished <-chan struct{}) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case w.queue <- j:
	case <-ctx.Done():
		return ctx.Err()
	case <-w.quit:
		return ErrClosed
	}
	<-finished
	return nil
}

// stop ends the loop after the jobs already queued and closes the
// connection.
func (w *writer) stop() {
	w.once.Do(func() {
		close(w.quit)
		<-w.done
		_ = w.stmts.Close()
	})
}

func (w *writer) loop() {
	defer close(w.done)
	jobs := make([]job, 0, maxBatch)
	concurrent := false
	for {
		select {
		case j := <-w.queue:
			jobs = append(jobs[:0], j)
		case <-w.quit:
			w.drain()
			return
		}
		if w.db.ckpt.restartWanted() {
			w.rewindWAL()
		}
		jobs = w.fill(jobs, concurrent)
		concurrent = len(jobs) > 1
		if n := int64(len(jobs)); n > w.largest.Load() {
			w.largest.Store(n)
		}
		w.batches.Add(1)
		w.batched.Add(int64(len(jobs)))
		w.runBatch(jobs)
		clear(jobs)
	}
}

// serverJob is what a job other than a client's write (a purge, the search
// backfill, indexing and merge) embeds: its context, its outcome and the
// channel closed when it is finished (to pass to submit).
type serverJob struct {
	ctx      context.Context
	err      error
	finished chan struct{}
}

func newServerJob(ctx context.Context) serverJob {
	return serverJob{ctx: ctx, finished: make(chan struct{})}
}

func (j *serverJob) context() context.Context { return j.ctx }

func (j *serverJob) conditional() bool { return false }

func (j *serverJob) finish(err error) {
	if err != nil {
		j.err = err
	}
	close(j.finished)
}

// rewindWAL copies the WAL's last frames into the database file and
// makes the next transaction write it from the top (a RESTART
// checkpoint), on the writer's connection between two transactions: no
// write can begin meanwhile, so the checkpoint catches up. It waits for
// readers of older snapshots at most rewindWait; one still reading leaves
// the rewind to the next time the checkpointer asks.
func (w *writer) rewindWAL() {
	ctx := context.Background()
	conn, err := w.db.write.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, rewindWait.Milliseconds())); err != nil {
		return
	}
	var busy, frames, copied int64
	if conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(RESTART)`).Scan(&busy, &frames, &copied) == nil && busy == 0 {
		w.rewound.Add(1)
	} else {
		w.rewindBusy.Add(1)
	}
	_, _ = conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, busyTimeout.Milliseconds()))
}

// rewindWait bounds how long rewindWAL holds the writes back.
const rewindWait = 50 * time.Millisecond

// fill adds the queued jobs to the batch, up to maxBatch. It first lets
// the goroutines that are ready to run go first, while that brings more
// jobs (at most maxYields times): requests being read and decoded reach
// the queue before the batch begins. Without it, on one CPU (the server
// pinned to one, or GOMAXPROCS=1), each request's submit handed the CPU
// straight to the writer, and batches under 16 concurrent writers held
// 1.8 writes on average (TestBatchesFillOnOneCPU). Yielding costs no
// time when nothing else is ready.
//
// When writers are running concurrently (the last batch held several
// writes), it then waits up to linger for more of them, so that they
// share one COMMIT: a commit writes every changed page to the WAL, two
// write(2) calls a page, and most pages (the repository's row, the index
// leaves) are the same for every write of the batch. A lone writer never
// waits, nor does a conditional write, neither for ready goroutines nor
// for linger: of several made against one state at most one succeeds,
// and holding it back only keeps its competitors reading the state it is
// about to replace (8 compare-and-swap writers acknowledged half as many
// writes when they were held back by linger, a quarter fewer when by
// the yields).
func (w *writer) fill(jobs []job, concurrent bool) []job {
	jobs = w.take(jobs)
	for range maxYields {
		if len(jobs) == maxBatch || slices.ContainsFunc(jobs, job.conditional) {
			break
		}
		runtime.Gosched()
		n := len(jobs)
		if jobs = w.take(jobs); len(jobs) == n {
			break
		}
	}
	if !concurrent || len(jobs) == maxBatch || slices.ContainsFunc(jobs, job.conditional) {
		return jobs
	}
	w.lingered.Add(1)
	t := time.NewTimer(linger)
	defer t.Stop()
	for len(jobs) < maxBatch {
		select {
		case j := <-w.queue:
			jobs = append(jobs, j)
			if j.conditional() {
				return jobs
			}
		case <-t.C:
			return jobs
		}
	}
	return jobs
}

// maxYields bounds how many times fill lets other goroutines run while
// more jobs keep arriving.
const maxYields = 8

// take adds the jobs already queued to the batch, up to maxBatch, without
// waiting.
func (w *writer) take(jobs []job) []job {
	for len(jobs) < maxBatch {
		select {
		case j := <-w.queue:
			jobs = append(jobs, j)
		default:
			return jobs
		}
	}
	return jobs
}

// drain finishes the jobs queued before stop with ErrClosed.
func (w *writer) drain() {
	for {
		select {
		case j := <-w.queue:
			j.finish(ErrClosed)
		default:
			return
		}
	}
}

// runBatch runs jobs in one transaction and finishes each of them. When a
// write of several failed to save (errRunAlone), the transaction is rolled
// back and each job runs again in a transaction of its own.
func (w *writer) runBatch(jobs []job) {
	if jobs = w.refuseStale(jobs); len(jobs) == 0 {
		return
	}
	ctx := context.Background() // a caller's cancellation must not abort the others' transaction
	errs := make([]error, len(jobs))
	err := w.inTx(ctx, func(b *batch) {
		b.alone = len(jobs) == 1
		for i, j := range jobs {
			if err := j.context().Err(); err != nil {
				errs[i] = fmt.Errorf("start write: %w", err)
				continue
			}
			if b.broken != nil {
				errs[i] = b.broken
				continue
			}
			errs[i] = j.run(ctx, b)
		}
	})
	if ra := (*errRunAlone)(nil); len(jobs) > 1 && errors.As(err, &ra) {
		w.ranAlone.Add(1)
		for _, j := range jobs {
			w.runBatch([]job{j})
		}
		return
	}
	for i, j := range jobs {
		if errs[i] == nil {
			errs[i] = err
		}
		j.finish(errs[i])
	}
}

// refuseStale finishes at once, without a transaction, each conditional
// write whose precondition the repository's committed state already fails
// (the state a transaction would read for it: no write of the batch comes
// before it to that repository), and returns the other jobs. Under
// compare-and-swap writers, an attempt that passed the early check
// (Store.Precondition) often loses to a write queued before it, which
// commits in the batch before its own: a batch of such refusals began a
// transaction, bound its statements and rolled back. A job of another kind
// may change any repository, so the jobs from the first one on are left to
// the transaction, as is a write cut by a review policy (checked first).
func (w *writer) refuseStale(jobs []job) []job {
	var touched map[string]bool
	kept := jobs[:0]
	for i, j := range jobs {
		a, ok := j.(*applyJob)
		if !ok {
			return append(kept, jobs[i:]...)
		}
		if a.conditional() && a.w.Policy == "" && !touched[a.w.Repo] {
			if st, ok := w.db.states.get(a.w.Repo); ok {
				if err := (server.Preconditions{IfMatch: a.w.IfMatch, IfNoneMatch: a.w.IfNoneMatch}).Check(st); err != nil {
					a.finish(fmt.Errorf("apply write to %s: %w", a.w.Repo, err))
					w.refused.Add(1)
					continue
				}
			}
		}
		if touched == nil {
			touched = map[string]bool{}
		}
		touched[a.w.Repo] = true
		kept = append(kept, j)
	}
	return kept
}

// inTx begins a transaction, lets fill run the jobs in it and commits it
// (rolls it back when nothing changed or it broke), publishing the new
// repository states under the states lock.
func (w *writer) inTx(ctx context.Context, fill func(*batch)) error {
	tx, err := w.db.write.BeginTx(ctx, nil)
	if err != nil {
		return wrap("begin write", err)
	}
	b := newBatch(ctx, tx, w)
	fill(b)
	if b.broken != nil || !b.changed {
		if b.broken == nil && b.indexedMarks {
			// An indexing job found no mark, and nothing else changed:
			// none is left, whatever the count said.
			w.db.pending.Store(0)
		}
		return errors.Join(b.broken, wrap("roll back write", tx.Rollback()))
	}
	pending, err := b.markPending(ctx)
	if err = errors.Join(err, b.stmts.search.apply(ctx, b.index), b.saveRepos(ctx), b.audit.save(ctx)); err != nil {
		_ = tx.Rollback()
		return err
	}
	w.db.states.mu.Lock()
	defer w.db.states.mu.Unlock()
	if err := tx.Commit(); err != nil {
		return wrap("commit write", err)
	}
	w.db.states.setLocked(b.pending)
	w.db.meta.Commit(b.plans)
	for repo, p := range b.policies {
		w.db.policies.set(repo, p) // before the next batch checks a write against it
	}
	if b.purged {
		w.db.meta.Clear()
	}
	w.db.ckpt.poke()
	w.db.pending.Store(pending)
	// Every write that marked keys pokes, those already marked too: the
	// merger takes a pause in the pokes for a pause in the writes. Poked
	// only for new marks, a burst rewriting fewer than maxPending keys
	// fell silent once each was marked, and the merger indexed and merged
	// in the middle of it every mergeIdle (PUT to a 1,000-entry
	// repository: each key indexed again about every second, batches of
	// 60-150 ms holding the writes queued behind them).
	if len(b.index) > 0 || len(b.marks) > 0 {
		select {
		case w.indexed <- struct{}{}:
		default:
		}
	}
	return nil
}

// applyJob is one Store.Apply.
type applyJob struct {
	ctx  context.Context
	w    server.Write
	res  server.WriteResult
	err  error
	done chan struct{}
}

func (j *applyJob) context() context.Context { return j.ctx }

func (j *applyJob) conditional() bool { return j.w.IfMatch.IsSet() || j.w.IfNoneMatch.IsSet() }

func (j *applyJob) run(ctx context.Context, b *batch) error {
	if err := b.checkPolicy(ctx, j.w); err != nil {
		return err
	}
	var err error
	j.res, err = b.w.cache.Apply(ctx, b.begin, j.w)
	return err
}

func (j *applyJob) finish(err error) {
	if err != nil {
		j.res, j.err = server.WriteResult{}, err
	}
	close(j.done)
}

// Apply queues one write for the writer and waits until its batch has
// committed; see server.Store.
func (db *DB) Apply(ctx context.Context, w server.Write) (server.WriteResult, error) {
	j := &applyJob{ctx: ctx, w: w, done: make(chan struct{})}
	if err := db.writer.submit(ctx, j, j.done); err != nil {
		return server.WriteResult{}, fmt.Errorf("apply write to %s: %w", w.Repo, err)
	}
	return j.res, j.err
}
