package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/proctest"
)

// TestWriteWaitingOnPolicySet: a write (server.Write's Policy off) whose
// row lock waits for a policy set not yet committed checks the policy that
// set commits, and is refused: on the guarded path (the process wrote the
// repository last and plans without reading) and on the locked one
// (another replica wrote last). The set is a transaction that writes
// review_policies, as SetReviewPolicy does, held open until the write
// waits for it; the copy of the policy on the repository's row (migration
// 23's trigger) takes the row's lock.
func TestWriteWaitingOnPolicySet(t *testing.T) {
	url, a, b := twoReplicas(t)
	ctx := context.Background()
	watcher := connect(t, url)
	for _, c := range []struct {
		repo string
		last *postgres.DB
	}{{"acme/guarded", a}, {"acme/locked", b}} {
		cut := putWrite(c.repo, "k.md", "one")
		cut.Policy = server.ReviewOff
		if _, err := c.last.Apply(ctx, cut); err != nil {
			t.Fatal(err)
		}
		conn := connect(t, url)
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO review_policies (repo, review, set_at) VALUES ($1, 'all', now())`, c.repo); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			w := putWrite(c.repo, "k.md", "two")
			w.Policy = server.ReviewOff
			_, err := a.Apply(ctx, w)
			done <- err
		}()
		setter := conn.PgConn().PID()
		proctest.WaitFor(t, "the write to wait for the policy set", func() bool {
			var n int
			err := watcher.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, int32(setter)).Scan(&n)
			return err == nil && n > 0
		})
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			var pc *server.PolicyChangedError
			if !errors.As(err, &pc) || pc.Policy != server.ReviewAll {
				t.Errorf("%s: the write that waited for policy all: %v; want a PolicyChangedError naming all", c.repo, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the write did not end after the policy set committed", c.repo)
		}
	}
}
