//go:build unix

package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/testkit/pgtest"
)

// casWriter is one writer of TestKillServerMidGroup: it owns a key and
// pushes generation after generation of it, each with If-Match of the
// state it last saw, and keeps what the server told it of each.
type casWriter struct {
	key      string
	acked    map[int]int64 // generation → the version its acknowledgement named
	refused  []int         // generations answered 412
	inFlight int           // the generation whose answer the kill cut off (0: none)
}

func (w *casWriter) content(g int) string {
	return fmt.Sprintf("%s: generation %d\n", w.key, g)
}

// run pushes until the server stops answering.
func (w *casWriter) run(ctx context.Context, c *client.Client, etag string) {
	for g := 1; ; g++ {
		res, err := c.Put(ctx, repo, api.PutRequest{Entries: map[string]string{w.key: w.content(g)}}, etag)
		switch {
		case err == nil:
			w.acked[g], etag = res.Version, res.Checksum
			continue
		case !errors.Is(err, client.ErrPreconditionFailed):
			w.inFlight = g
			return
		}
		w.refused = append(w.refused, g)
		h, err := c.Hashes(ctx, repo)
		if err != nil {
			return
		}
		etag = h.Checksum
	}
}

// plainRepo is the repository TestKillServerMidGroup's unconditional
// writers write: in the conditional writers' they would refuse nearly all
// of them.
const plainRepo = "acme/e2e-plain"

// TestKillServerMidGroup kills the server with SIGKILL while conditional
// writers (whose writes race for each state, so that groups hold writes
// that commit and writes refused with 412) and unconditional writers of
// another repository (whose writes share the embedded store's groups)
// write, then starts it again on the same store: every
// acknowledged write must be in its key's history at the version it was
// acknowledged with, no write answered 412 may be anywhere in it, and each
// key must hold its writer's last acknowledged generation or the one the
// kill cut off.
func TestKillServerMidGroup(t *testing.T) {
	stores := map[string]func(t *testing.T) []string{
		"sqlite":                  func(*testing.T) []string { return nil },
		"sqlite sync each commit": func(*testing.T) []string { return []string{"--sync-each-commit"} },
		"postgres":                func(t *testing.T) []string { return []string{"--database-url", pgtest.URL(t), "--migrate"} },
	}
	for name, flags := range stores {
		t.Run(name, func(t *testing.T) {
			for round := range 2 {
				t.Run(fmt.Sprint(round), func(t *testing.T) { killMidGroup(t, flags(t)) })
			}
		})
	}
}

func killMidGroup(t *testing.T, flags []string) {
	const conditional, plain = 6, 4
	dir := t.TempDir()
	srv := startServer(t, dir, "127.0.0.1:0", flags...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first, err := srv.api.Put(ctx, repo, api.PutRequest{Entries: map[string]string{"seed.md": "seed\n"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	writers := make([]*casWriter, conditional)
	var wg sync.WaitGroup
	for i := range writers {
		writers[i] = &casWriter{key: fmt.Sprintf("kill/cas%d.md", i), acked: map[int]int64{}}
		wg.Go(func() { writers[i].run(ctx, srv.api, first.Checksum) })
	}
	for i := range plain {
		wg.Go(func() {
			for g := 0; ; g++ {
				req := api.PutRequest{Entries: map[string]string{fmt.Sprintf("kill/plain%d.md", i): fmt.Sprintf("plain %d\n", g)}}
				if _, err := srv.api.Put(ctx, plainRepo, req, ""); err != nil {
					return
				}
			}
		})
	}
	time.Sleep(time.Duration(300+rand.IntN(700)) * time.Millisecond)
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	srv.wait()
	wg.Wait()

	again := startServer(t, dir, "127.0.0.1:0", withoutMigrate(flags)...)
	tm, err := again.api.Get(ctx, repo, client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	acked, refused := 0, 0
	for _, w := range writers {
		acked, refused = acked+len(w.acked), refused+len(w.refused)
		checkWriter(ctx, t, again.api, w, tm)
	}
	if acked == 0 || refused == 0 {
		t.Fatalf("the kill came too early: %d writes acknowledged, %d refused:\n%s", acked, refused, srv.stderr)
	}
	t.Logf("%d conditional writes acknowledged and %d refused before the kill, up to version %d", acked, refused, tm.Version)
}

// withoutMigrate returns the store flags of a restart.
func withoutMigrate(flags []string) []string {
	var out []string
	for _, f := range flags {
		if f != "--migrate" {
			out = append(out, f)
		}
	}
	return out
}

// checkWriter checks w's key after the restart against what the server
// told w before the kill.
func checkWriter(ctx context.Context, t *testing.T, c *client.Client, w *casWriter, tm *api.TeamMemory) {
	t.Helper()
	versions := keyHistory(ctx, t, c, w.key)
	last := 0
	for g, v := range w.acked {
		last = max(last, g)
		if versions[protocol.EntryChecksum([]byte(w.content(g)))] != v {
			t.Errorf("%s: generation %d was acknowledged at version %d; history has it at %d",
				w.key, g, v, versions[protocol.EntryChecksum([]byte(w.content(g)))])
		}
	}
	for _, g := range w.refused {
		if v, ok := versions[protocol.EntryChecksum([]byte(w.content(g)))]; ok {
			t.Errorf("%s: generation %d was refused with 412, yet history has it at version %d", w.key, g, v)
		}
	}
	got := tm.Content.Entries[w.key]
	if last > 0 && got != w.content(last) && (w.inFlight == 0 || got != w.content(w.inFlight)) {
		t.Errorf("%s holds %q after the restart; generation %d was the last acknowledged, %d in flight",
			w.key, got, last, w.inFlight)
	}
}

// keyHistory returns the version of each content checksum key ever held.
func keyHistory(ctx context.Context, t *testing.T, c *client.Client, key string) map[string]int64 {
	t.Helper()
	versions := map[string]int64{}
	opts := client.HistoryOptions{Limit: 500}
	for {
		h, err := c.History(ctx, repo, key, opts)
		if errors.Is(err, client.ErrNotFound) {
			return versions
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range h.Revisions {
			versions[r.Checksum] = r.Version
			opts.Before = r.Version
		}
		if len(h.Revisions) < opts.Limit {
			return versions
		}
	}
}
