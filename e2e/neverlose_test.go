//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/testkit/proctest"
)

// syncOK runs `teammem-agent sync` on dir and fails unless it exits 0.
func syncOK(t *testing.T, srv *serverProc, dir, state string, extra ...string) *proc {
	t.Helper()
	code, p := runAgent(t, srv, dir, state, "sync", extra...)
	if code != 0 {
		t.Fatalf("sync of %s: exit %d\nstdout %s\nstderr %s", dir, code, p.stdout, p.stderr)
	}
	return p
}

// TestFirstPushDoesNotOverwriteATeammatesFirstPush is defect 1 of issue 7:
// B runs on a repo that does not exist yet (its pull was a 404); A pushes
// MEMORY.md ("Alice…"); B's user writes their own MEMORY.md ("Bob…"). B's
// push is conditional (If-None-Match: *), is refused, and B merges: both
// lines reach the server and A, nobody's text is replaced and there is no
// conflict copy.
func TestFirstPushDoesNotOverwriteATeammatesFirstPush(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	aDir, aState := t.TempDir(), t.TempDir()
	// B pulls a 404 and must not learn of A's push before its own: no event
	// stream and no poll, so only its conditional push can tell it.
	b := startAgent(t, srv, t.TempDir(), t.TempDir(), "--no-stream", "--poll", "1h")
	write(t, aDir, "MEMORY.md", "- Alice: the deploy runbook is in ops/\n")
	syncOK(t, srv, aDir, aState)
	write(t, b.dir, "MEMORY.md", "- Bob: CI caches live in S3\n")
	want := "- Bob: CI caches live in S3\n- Alice: the deploy runbook is in ops/\n"
	proctest.WaitFor(t, "both first pushes on the server", func() bool { return srv.entries(repo)["MEMORY.md"] == want })
	if got := read(b.dir, "MEMORY.md"); got != want {
		t.Errorf("B's MEMORY.md = %q, want %q", got, want)
	}
	p := syncOK(t, srv, aDir, aState)
	if got := read(aDir, "MEMORY.md"); got != want {
		t.Errorf("A's MEMORY.md after its next sync = %q, want %q\n%s", got, want, p.stdout)
	}
	for _, dir := range []string{aDir, b.dir} {
		if c := conflictCopies(t, dir); len(c) != 0 {
			t.Errorf("conflict copies in %s: %v", dir, c)
		}
	}
	if code := b.stop(t, 15); code != 0 {
		t.Errorf("B exit %d:\n%s", code, b.stderr)
	}
}

// TestDeletedKeysStayDeletedAfterTombstonesArePurged is defect 2 of issue
// 7: 30 keys, two agents pull, A deletes 10, the server purges the
// tombstones, both sync: the 10 stay deleted everywhere (B deletes them
// locally), except one that B edited meanwhile, which B pushes again (an
// edit wins over a delete).
func TestDeletedKeysStayDeletedAfterTombstonesArePurged(t *testing.T) {
	data := t.TempDir()
	srv := startServer(t, data, "127.0.0.1:0")
	all := map[string]string{}
	for i := range 30 {
		all[fmt.Sprintf("k%02d.md", i)] = fmt.Sprintf("key %d\n", i)
	}
	putAll(t, srv, all)
	aDir, aState, bDir, bState := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	syncOK(t, srv, aDir, aState)
	syncOK(t, srv, bDir, bState)
	for i := range 10 {
		os.Remove(filepath.Join(aDir, fmt.Sprintf("k%02d.md", i)))
	}
	syncOK(t, srv, aDir, aState)
	write(t, bDir, "k00.md", "key 0, edited by B while A deleted it\n")
	time.Sleep(50 * time.Millisecond)
	addr := srv.addr
	if code := srv.stop(t, 15); code != 0 {
		t.Fatalf("server exit %d", code)
	}
	srv = startServer(t, data, addr, "--tombstone-retention", "1ms") // purges at start
	proctest.WaitFor(t, "the purge", func() bool { return strings.Contains(srv.stderr.String(), "purged tombstones") })
	for range 2 { // each twice: the second sync must move nothing
		syncOK(t, srv, aDir, aState)
		syncOK(t, srv, bDir, bState)
	}
	want := map[string]string{"k00.md": "key 0, edited by B while A deleted it\n"}
	for i := 10; i < 30; i++ {
		want[fmt.Sprintf("k%02d.md", i)] = fmt.Sprintf("key %d\n", i)
	}
	for name, got := range map[string]map[string]string{"server": srv.entries(repo), "A": files(t, aDir), "B": files(t, bDir)} {
		if len(got) != len(want) {
			t.Errorf("%s holds %d keys, want %d", name, len(got), len(want))
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", name, k, got[k], v)
			}
		}
	}
}

// TestConcurrentIndexAdditionsMerge is defect 4 of issue 7: two teammates
// each add one line to MEMORY.md (top level and in a subfolder) and sync:
// both lines end up in every copy of the index, with no conflict copy.
func TestConcurrentIndexAdditionsMerge(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	const idx = "# Team memory\n- [Deploys](deploys.md) — how we ship\n"
	putAll(t, srv, map[string]string{"MEMORY.md": idx, "backend/MEMORY.md": idx})
	aDir, aState, bDir, bState := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	syncOK(t, srv, aDir, aState)
	syncOK(t, srv, bDir, bState)
	for _, k := range []string{"MEMORY.md", "backend/MEMORY.md"} {
		write(t, aDir, k, idx+"- [Flaky tests](flaky.md) — known flakes\n")
		write(t, bDir, k, idx+"- [On-call](oncall.md) — rotation\n")
	}
	syncOK(t, srv, aDir, aState)
	syncOK(t, srv, bDir, bState)
	syncOK(t, srv, aDir, aState)
	want := idx + "- [On-call](oncall.md) — rotation\n- [Flaky tests](flaky.md) — known flakes\n"
	for _, k := range []string{"MEMORY.md", "backend/MEMORY.md"} {
		if got := srv.entries(repo)[k]; got != want {
			t.Errorf("server %s = %q, want %q", k, got, want)
		}
		for _, dir := range []string{aDir, bDir} {
			if got := read(dir, k); got != want {
				t.Errorf("%s/%s = %q, want %q", dir, k, got, want)
			}
		}
	}
	for _, dir := range []string{aDir, bDir} {
		if c := conflictCopies(t, dir); len(c) != 0 {
			t.Errorf("conflict copies in %s: %v", dir, c)
		}
	}
}

// TestServerThatLostItsDataIsNotReuploaded: when the server no longer has
// the repo while the journal says it synced a version, sync stops (exit
// non-zero) and pushes nothing, status says what it saw, and sync
// --reseed uploads the folder.
func TestServerThatLostItsDataIsNotReuploaded(t *testing.T) {
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	putAll(t, srv, map[string]string{"a.md": "a\n", "b.md": "b\n"})
	dir, state := t.TempDir(), t.TempDir()
	syncOK(t, srv, dir, state)
	srv.stop(t, 15)
	srv = startServer(t, t.TempDir(), srv.addr) // a new, empty data directory
	code, p := runAgent(t, srv, dir, state, "sync")
	// A new data directory is a new database, another identity: the
	// folder's journal is of the old one, which the agent names.
	if code == 0 || !strings.Contains(p.stderr.String()+p.stdout.String(), "this folder last synced version 1") {
		t.Errorf("sync against a server that lost the data: exit %d\nstdout %s\nstderr %s", code, p.stdout, p.stderr)
	}
	if n := len(srv.entries(repo)); n != 0 {
		t.Errorf("the server holds %d entries after a sync that should push nothing", n)
	}
	code, st := runAgent(t, srv, dir, state, "status")
	if code != 0 || !strings.Contains(st.stdout.String(), "this folder last synced version 1") {
		t.Errorf("status: exit %d\n%s", code, st.stdout)
	}
	syncOK(t, srv, dir, state, "--reseed")
	if got := srv.entries(repo); got["a.md"] != "a\n" || got["b.md"] != "b\n" || len(got) != 2 {
		t.Errorf("server after --reseed: %v", got)
	}
	syncOK(t, srv, dir, state)
}
