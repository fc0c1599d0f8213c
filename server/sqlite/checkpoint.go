package sqlite

import (
	"context"
	"database/sql"
	"time"
)

// checkpointPause is the least time between two checkpoints. The pages
// a burst of writes changes again and again (a repository's row, index
// leaves) are copied into the file once per checkpoint, so fewer
// checkpoints copy fewer pages; the WAL holds at most this long's frames.
const checkpointPause = 200 * time.Millisecond

// checkpointer copies committed WAL frames back into the database file on
// its own connection, so the writer (whose connection does not checkpoint
// automatically) never pays for it inside a COMMIT. The writer kicks it
// after each commit; kicks coalesce.
type checkpointer struct {
	pool *sql.DB
	kick chan struct{}
	quit chan struct{}
	done chan struct{}
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
		// PASSIVE never waits for readers or the writer; a failure leaves
		// the frames for the next run (or the last connection's close).
		_, _ = c.pool.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
		select {
		case <-time.After(checkpointPause):
		case <-c.quit:
			return
		}
	}
}

// stop ends the loop and closes the connection.
func (c *checkpointer) stop() error {
	close(c.quit)
	<-c.done
	return c.pool.Close()
}
