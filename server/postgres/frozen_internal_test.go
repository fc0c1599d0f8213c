package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
	"github.com/teammem/teammem/testkit/pgtest"
)

// pausingTx runs pause after a successful Lock: the write's deadline can
// then pass between two statements, with the transaction open on a
// connection that is still healthy.
type pausingTx struct {
	writeplan.Tx
	pause func()
}

func (p pausingTx) Lock(ctx context.Context, repo string) (server.RepoState, error) {
	st, err := p.Tx.Lock(ctx, repo)
	if err == nil {
		p.pause()
	}
	return st, err
}

// TestCleanupUnderDeadlineOnFrozenServer: a write whose deadline passes
// after it locked the repository, while the database server is frozen
// (SIGSTOP), returns promptly: its ROLLBACK runs under a deadline instead
// of waiting for a server that does not answer.
func TestCleanupUnderDeadlineOnFrozenServer(t *testing.T) {
	cluster := pgtest.StartCluster(t)
	db, err := Open(context.Background(), cluster.URL, Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cluster.Thaw(); db.Close() }()
	w := server.Write{Repo: "acme/frozen", Puts: []server.Put{{Key: "a.md", Content: "a", Checksum: "sha256:a"}}, Author: "t"}
	if _, err := db.Apply(context.Background(), w); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	g := db.newGroup(w.Repo)
	begin := func(ctx context.Context) (writeplan.Tx, error) {
		tx, err := g.begin(ctx)
		if err != nil {
			return nil, err
		}
		return pausingTx{Tx: tx, pause: func() {
			cluster.Freeze(t)
			<-ctx.Done()
		}}, nil
	}
	w.Puts[0].Content, w.Puts[0].Checksum = "b", "sha256:b"
	done := make(chan error, 1)
	go func() {
		_, err := db.cache.Apply(ctx, begin, w)
		if err == nil {
			err = g.commit(ctx)
		}
		g.end(ctx)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a write past its deadline on a frozen server succeeded")
		}
	case <-time.After(2*time.Second + cleanupTimeout + time.Second):
		t.Fatal("the write did not return within its deadline and the cleanup's: the ROLLBACK waits for the frozen server")
	}
	cluster.Thaw()
	if _, err := db.Apply(context.Background(), w); err != nil {
		t.Errorf("write after SIGCONT: %v", err)
	}
}
