package sqlite

import (
	"context"
	"database/sql"
	"sync/atomic"
	"time"
)

// checkpointPause is the least time between two checkpoints. The pages
// a burst of writes changes again and again (a repository's row, index
// leaves) are copied into the file once per checkpoint, so fewer
// checkpoints copy fewer pages; the WAL holds at most this long's frames.
const checkpointPause = 200 * time.Millisecond

// walRestartFrames is how many frames the WAL may hold before the writer
// restarts it (see checkpointer.restartWanted): 16,384 pages of 4 KiB,
// 64 MiB. A passive checkpoint copies frames but never rewinds the WAL:
// only a write transaction that begins once every frame is copied, and no
// reader uses them, starts writing it from the top again. Under sustained
// writes the writer always begins first, and the file grew without end
// (1.5 GB after 30 s of 16 concurrent 2 KB PUTs; TestWALBoundedUnderLoad).
var walRestartFrames int64 = 16384 // a variable for tests

// walSizeLimit is the size the WAL file is cut to when it rewinds
// (journal_size_limit): what grew in a burst is given back.
const walSizeLimit = 16384 * 4096

// checkpointer copies committed WAL frames back into the database file on
// its own connection, so the writer (whose connection does not checkpoint
// automatically) never pays for it inside a COMMIT. The writer kicks it
// after each commit; kicks coalesce.
type checkpointer struct {
	pool *sql.DB
	kick chan struct{}
	quit chan struct{}
	done chan struct{}
	// restart is set when a checkpoint found the WAL longer than
	// walRestartFrames.
	restart atomic.Bool
}

func startCheckpointer(ctx context.Context, path string) (*checkpointer, error) {
	pool, err := openPool(ctx, path+"?"+pragmas, 1)
	if err != nil {
		return nil, err
	}
	c := &checkpointer{pool: pool, kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c, nil
}

// poke asks for a checkpoint soon; it never blocks.
func (c *checkpointer) poke() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) loop() {
	defer close(c.done)
	for {
		select {
		case <-c.kick:
		case <-c.quit:
			return
		}
		if frames, err := c.passive(); err == nil && frames >= walRestartFrames {
			// Copy what the writer appended during that checkpoint before
			// asking it to rewind: the rewind, which holds the writes,
			// then copies and syncs only what it appended during this
			// second, short one.
			if _, err := c.passive(); err == nil {
				c.restart.Store(true)
			}
		}
		select {
		case <-time.After(checkpointPause):
		case <-c.quit:
			return
		}
	}
}

// passive runs one PASSIVE checkpoint and returns the WAL's length in
// frames. PASSIVE never waits for readers or the writer; a failure leaves
// the frames for the next run (or the last connection's close).
func (c *checkpointer) passive() (frames int64, err error) {
	var busy, copied int64
	err = c.pool.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied)
	return frames, err
}

// restartWanted reports, once, that the WAL has grown past
// walRestartFrames: the writer then rewinds it between two transactions
// (see writer.rewindWAL).
func (c *checkpointer) restartWanted() bool {
	return c.restart.Load() && c.restart.Swap(false)
}

// stop ends the loop and closes the connection.
func (c *checkpointer) stop() error {
	close(c.quit)
	<-c.done
	return c.pool.Close()
}
