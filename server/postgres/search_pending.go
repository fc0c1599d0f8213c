package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/teammem/teammem/server"
)

// A write marks the keys it changes in search_pending (migration 10), in
// its transaction, instead of computing and storing their vectors: the
// tokenising, the vectors' TOAST and their GIN entries are a large share
// of a put's cost, spent on text most puts replace again before anyone
// searches. The marked keys are indexed, with their content at that
// moment, by indexRepo:
//   - before every search, for the repositories it searches, by the
//     replica that searches (so a search sees every acknowledged write,
//     wherever it was made: the write committed its marks with it);
//   - in the background by the replica that wrote them, once its writes
//     pause for pendingPause, and as soon as it has marked maxPending keys
//     (in all its repositories), so that the first search after a burst does a
//     bounded amount of work (see indexer);
//   - at open, every mark left (by a replica that ended before indexing).
//
// Until its mark is indexed an entry keeps the vectors of its content
// before the write; no search reads them. The indexing of a repository's
// marks holds the repository's row lock, taken first, as a write takes it:
// a write and the indexing of the keys it marks never interleave, and the
// replicas take turns (one indexes, the others then find no mark left).

// pendingBatch is how many marked keys of one repository one transaction
// indexes at most while it holds the repository's row lock;
// searchtext.BatchBytes bounds the content it reads.
const pendingBatch = 200

// maxPending is how many keys this process's writes may mark, in all
// repositories, before it indexes them without waiting for its writes to
// pause: a burst that rewrites up to this many keys indexes each of them
// once after it, not once per write. With 500, a burst rotating over
// 1,000 keys (PUT one key of a 1,000-entry repository) indexed every
// write anyway (the SQLite store's limit is the same, for the same
// reason).
const maxPending = 2000

// pendingPause is how long this process's writes pause before it indexes
// the keys they marked (a variable for the tests: a DB takes it at open).
var pendingPause = time.Second

const (
	// markPending marks the keys $2 of repository $1 (those already marked
	// stay so).
	markPending = `INSERT INTO search_pending (repo, key) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`
	// lockRepoRow is the lock a write takes first; see lockRepo.
	lockRepoRow = `SELECT 1 FROM repos WHERE slug = $1 FOR UPDATE`
	// pendingSizes lists up to $2 marks of repository $1, by key, with
	// the size of the content each would index (0 for an entry deleted or
	// purged since).
	pendingSizes = `SELECT p.key, CASE WHEN e.deleted THEN 0 ELSE coalesce(e.size, 0) END
		FROM search_pending p LEFT JOIN entries e ON e.repo = p.repo AND e.key = p.key
		WHERE p.repo = $1 ORDER BY p.key LIMIT $2`
	// takePending drops the marks of the keys $2 of repository $1 and
	// returns their keys with their entries as they are (an entry purged
	// since is deleted).
	takePending = `WITH m AS (
			DELETE FROM search_pending WHERE repo = $1 AND key = ANY($2) RETURNING key
		)
		SELECT m.key, coalesce(e.deleted, true), coalesce(e.content, '')
		FROM m LEFT JOIN entries e ON e.repo = $1 AND e.key = m.key`
	// pendingIn lists the repositories among $1 with marks (an index
	// lookup per repository).
	pendingIn = `SELECT DISTINCT repo FROM search_pending WHERE repo = ANY($1)`
	// pendingTeam lists the team repositories with marks and those among
	// $1, the repositories a search of everything reads (as searchSQL).
	pendingTeam = `SELECT DISTINCT repo FROM search_pending
		WHERE left(repo, 1) <> '` + server.PersonalMark + `' OR repo = ANY($1)`
	// pendingAll lists every repository with marks.
	pendingAll = `SELECT DISTINCT repo FROM search_pending`
)

// queueMarks queues the statement marking keys of repo; added receives how
// many were not marked yet.
func queueMarks(b *pgx.Batch, repo string, keys []string, added *int64) {
	b.Queue(markPending, repo, keys).Exec(func(ct pgconn.CommandTag) error {
		*added = ct.RowsAffected()
		return nil
	})
}

// indexSearched indexes the marks of the repositories a search reads
// before it reads them: repos, and with all every team repository.
func (db *DB) indexSearched(ctx context.Context, repos []string, all bool) error {
	if all {
		return db.indexListed(ctx, pendingTeam, nonNilRepos(repos))
	}
	return db.indexListed(ctx, pendingIn, nonNilRepos(repos))
}

// indexListed indexes the marks of the repositories query lists.
func (db *DB) indexListed(ctx context.Context, query string, args ...any) error {
	rows, err := db.pool.Query(ctx, query, args...)
	if err != nil {
		return wrap("index for search", err)
	}
	repos, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return wrap("index for search", err)
	}
	for _, r := range repos {
		if err := db.indexRepo(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// indexRepo indexes repo's marks, a batch per transaction, until it finds
// none left.
func (db *DB) indexRepo(ctx context.Context, repo string) error {
	for {
		more, err := db.indexBatch(ctx, repo)
		if err != nil || !more {
			return err
		}
	}
}

// indexBatch indexes up to pendingBatch of repo's marked keys, as many as
// searchtext.BatchLen takes, under the repository's row lock; more
// reports that it may have left some.
func (db *DB) indexBatch(ctx context.Context, repo string) (more bool, err error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockRepoRow, repo); err != nil {
			return err
		}
		keys, left, err := batchKeys(ctx, tx, pendingBatch, pendingSizes, repo, pendingBatch)
		if err != nil || len(keys) == 0 {
			return err
		}
		more = left
		ents, err := db.readIndexed(ctx, tx, takePending, repo, keys)
		if err != nil {
			return err
		}
		b := &pgx.Batch{}
		queueIndex(b, repo, ents)
		return tx.SendBatch(ctx, b).Close()
	})
	return more, wrap("index "+repo+" for search", err)
}

// indexer indexes, in the background, the keys this process's writes
// marked: once its writes pause for pendingPause, and as soon as it has
// marked maxPending keys. At start it indexes every mark there is.
type indexer struct {
	mu     sync.Mutex
	marked map[string]int64 // keys marked by this process since it last indexed them, by repository
	wrote  chan struct{}    // a write committed (buffered: one signal is enough)
	total  int64            // the sum of marked
	full   chan struct{}    // maxPending keys are marked
	pause  time.Duration    // pendingPause
}

func newIndexer() *indexer {
	return &indexer{marked: map[string]int64{}, wrote: make(chan struct{}, 1), full: make(chan struct{}, 1),
		pause: pendingPause}
}

// committed records that a write to repo committed, marking added keys
// that were not marked yet.
func (ix *indexer) committed(repo string, added int64) {
	ix.mu.Lock()
	if added > 0 {
		ix.marked[repo] += added
		ix.total += added
	}
	full := ix.total >= maxPending
	ix.mu.Unlock()
	signal(ix.wrote)
	if full {
		signal(ix.full)
	}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// run indexes until ctx ends.
func (ix *indexer) run(ctx context.Context, db *DB) {
	_ = db.indexListed(ctx, pendingAll) // a failure leaves the marks to the searches
	pause := time.NewTimer(ix.pause)
	pause.Stop()
	defer pause.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ix.wrote:
			pause.Reset(ix.pause)
		case <-ix.full:
			ix.index(ctx, db)
		case <-pause.C:
			ix.index(ctx, db)
		}
	}
}

// index indexes the repositories where this process marked keys. A
// repository it fails to index is tried again at the next pause (a search
// indexes it meanwhile if it can).
func (ix *indexer) index(ctx context.Context, db *DB) {
	ix.mu.Lock()
	marked := ix.marked
	ix.marked, ix.total = map[string]int64{}, 0
	ix.mu.Unlock()
	for r, n := range marked {
		if err := db.indexRepo(ctx, r); err != nil {
			ix.mu.Lock()
			ix.marked[r] += n
			ix.total += n
			ix.mu.Unlock()
		}
	}
}
