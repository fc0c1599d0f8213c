//go:build unix

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/proctest"
)

// syncBy runs `teammem-agent sync` on dir naming the server by url and
// returns its reports; the sync must exit 0.
func syncBy(t *testing.T, url, dir, state string) []report {
	t.Helper()
	p := startProc(t, agentBin, "sync", "--server", url, "--repo", repo, "--dir", dir, "--state-dir", state,
		"--json", "--log-level", "warn")
	p.wait()
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("sync of %s by %s: exit %d\nstdout %s\nstderr %s", dir, url, code, p.stdout, p.stderr)
	}
	return p.reports(t)
}

// pushedAndDeleted sums the keys the reports pushed and deleted locally.
func pushedAndDeleted(reps []report) (pushed, deleted []string) {
	for _, r := range reps {
		pushed, deleted = append(pushed, r.Pushed...), append(deleted, r.Deleted...)
	}
	return pushed, deleted
}

// TestLostJournalDoesNotResurrect is issue 29's data-safety case, with the
// real binaries: an agent pulls 30 keys; a teammate deletes 10; then the
// agent's state folder is wiped (a reinstall), or the same server is named
// another way (localhost instead of 127.0.0.1). The next sync pushes
// nothing back and deletes the 10 locally. With the tombstones purged, the
// URL spelling still keeps the journal (deleted locally); a wiped state
// folder falls back to the rules without history (the 10 are pushed back,
// as docs/sync.md says).
func TestLostJournalDoesNotResurrect(t *testing.T) {
	for _, tc := range []struct {
		name       string
		purged     bool
		wipe       bool // else: the other spelling of the URL
		resurrects bool
	}{
		{name: "state wiped", wipe: true},
		{name: "another spelling of the URL"},
		{name: "state wiped, tombstones purged", wipe: true, purged: true, resurrects: true},
		{name: "another spelling of the URL, tombstones purged", purged: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			srv := startServer(t, data, "127.0.0.1:0")
			all := map[string]string{}
			var deleted []string
			for i := range 30 {
				all[fmt.Sprintf("k%02d.md", i)] = fmt.Sprintf("key %d\n", i)
				if i < 10 {
					deleted = append(deleted, fmt.Sprintf("k%02d.md", i))
				}
			}
			putAll(t, srv, all)
			dir, state := t.TempDir(), t.TempDir()
			syncBy(t, srv.url(), dir, state)
			if n := len(files(t, dir)); n != 30 {
				t.Fatalf("pulled %d files, want 30", n)
			}
			if _, err := srv.api.Put(context.Background(), repo, api.PutRequest{SoftDeleteKeys: deleted}, ""); err != nil {
				t.Fatal(err) // the teammate's deletes
			}
			if tc.purged {
				addr := srv.addr
				if code := srv.stop(t, 15); code != 0 {
					t.Fatalf("server exit %d", code)
				}
				srv = startServer(t, data, addr, "--tombstone-retention", "1ms") // purges at start
				proctest.WaitFor(t, "the purge", func() bool { return strings.Contains(srv.stderr.String(), "purged tombstones") })
			}
			url := srv.url()
			if tc.wipe {
				if err := os.RemoveAll(state); err != nil {
					t.Fatal(err)
				}
			} else {
				url = strings.Replace(url, "127.0.0.1", "localhost", 1)
			}
			pushed, gone := pushedAndDeleted(syncBy(t, url, dir, state))
			live := srv.entries(repo)
			if tc.resurrects {
				if len(pushed) != 10 || len(live) != 30 {
					t.Errorf("pushed %v, server holds %d; want the 10 pushed back (no history to tell)", pushed, len(live))
				}
				return
			}
			if len(pushed) != 0 || len(live) != 20 {
				t.Errorf("pushed %v, server holds %d keys; want nothing pushed, 20 live", pushed, len(live))
			}
			if len(gone) != 10 {
				t.Errorf("deleted locally %v; want the 10 deleted keys", gone)
			}
			local := files(t, dir)
			for _, k := range deleted {
				if _, ok := local[k]; ok {
					t.Errorf("%s still in the folder", k)
				}
			}
			if len(local) != 20 {
				t.Errorf("%d local files, want 20", len(local))
			}
			// And it stays so: the next sync moves nothing.
			if pushed, gone := pushedAndDeleted(syncBy(t, url, dir, state)); len(pushed)+len(gone) != 0 {
				t.Errorf("second sync pushed %v, deleted %v; want nothing", pushed, gone)
			}
		})
	}
}

// TestVanishedKeysAreKeptLocally is the pull side's mass-delete guard with
// the real binaries: 20 of the 30 keys an agent synced vanish from the
// server without a tombstone (deleted, then purged). The next sync keeps
// the local files, pushes nothing, says why and exits 1; --allow-mass-delete then
// deletes them.
func TestVanishedKeysAreKeptLocally(t *testing.T) {
	data := t.TempDir()
	srv := startServer(t, data, "127.0.0.1:0")
	all := map[string]string{}
	var gone []string
	for i := range 30 {
		all[fmt.Sprintf("k%02d.md", i)] = fmt.Sprintf("key %d\n", i)
		if i < 20 {
			gone = append(gone, fmt.Sprintf("k%02d.md", i))
		}
	}
	putAll(t, srv, all)
	dir, state := t.TempDir(), t.TempDir()
	syncBy(t, srv.url(), dir, state)
	if _, err := srv.api.Put(context.Background(), repo, api.PutRequest{SoftDeleteKeys: gone}, ""); err != nil {
		t.Fatal(err)
	}
	addr := srv.addr
	if code := srv.stop(t, 15); code != 0 {
		t.Fatalf("server exit %d", code)
	}
	srv = startServer(t, data, addr, "--tombstone-retention", "1ms")
	proctest.WaitFor(t, "the purge", func() bool { return strings.Contains(srv.stderr.String(), "purged tombstones") })

	held := startProc(t, agentBin, append([]string{"sync"}, runArgs(srv, dir, state)...)...)
	held.wait()
	if code := held.cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("sync holding files back: exit %d, want 1 (a warning needs attention)\n%s", code, held.stderr)
	}
	reps := held.reports(t)
	pushed, deleted := pushedAndDeleted(reps)
	var warned bool
	for _, r := range reps {
		warned = warned || strings.Contains(strings.Join(r.Warnings, "\n"), "not deleting 20 of 30 local files")
	}
	if len(pushed)+len(deleted) != 0 || !warned || len(files(t, dir)) != 30 || len(srv.entries(repo)) != 10 {
		t.Errorf("pushed %v, deleted %v, warned %v, %d local files, %d on the server; want nothing moved, 30 kept, a warning, 10 live",
			pushed, deleted, warned, len(files(t, dir)), len(srv.entries(repo)))
	}
	p := startProc(t, agentBin, append([]string{"sync"}, append(runArgs(srv, dir, state), "--allow-mass-delete")...)...)
	p.wait()
	if _, deleted := pushedAndDeleted(p.reports(t)); len(deleted) != 20 || len(files(t, dir)) != 10 {
		t.Errorf("with --allow-mass-delete: deleted %v, %d local files; want the 20 deleted, 10 left", deleted, len(files(t, dir)))
	}
}
