package storetest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/audit"
)

// AuditStore is a store with its audit log.
type AuditStore interface {
	server.Store
	server.AuditLog
	server.TokenRegistry
	server.RevocationStore
}

// Intruder edits a store's audit tables by hand, as someone with the
// database's password and without the server's key would: each method is
// one SQL statement on the store's database.
type Intruder interface {
	// SetEntry overwrites an entry's body, previous hash and hash.
	SetEntry(t *testing.T, chain string, seq int64, body, prev, hash []byte)
	// MoveEntry renumbers an entry.
	MoveEntry(t *testing.T, chain string, from, to int64)
	// DeleteEntry deletes an entry.
	DeleteEntry(t *testing.T, chain string, seq int64)
	// SetHead overwrites a chain's head.
	SetHead(t *testing.T, chain string, seq int64, hash []byte)
}

// auditKey is the suite's server key: fixed, so failures repeat.
var auditKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))

func auditPub() ed25519.PublicKey { return auditKey.Public().(ed25519.PublicKey) }

// AuditChain checks a store's audit log: its writes, erases, tokens and
// revocations each append a record to the right chain, with who did them;
// a clean log verifies; and every hand edit of the database (an entry
// edited, edited with its hashes recomputed, reordered, deleted in the
// middle, at the end, at the start) is found by audit.Verify. open returns
// a new, empty store and its intruder.
func AuditChain(t *testing.T, open func(t *testing.T) (AuditStore, Intruder)) {
	t.Run("Records", func(t *testing.T) {
		s, _ := open(t)
		testAuditRecords(t, s)
	})
	for _, c := range tamperings {
		t.Run(c.name, func(t *testing.T) {
			s, in := open(t)
			auditHistory(t, s)
			c.tamper(t, s, in)
			wantProblem(t, s, c.want)
		})
	}
	t.Run("Prune", func(t *testing.T) {
		s, in := open(t)
		testAuditPrune(t, s, in)
	})
	t.Run("Concurrent", func(t *testing.T) {
		s, _ := open(t)
		ConcurrentAudit(t, s, s)
	})
}

// auditHistory writes five versions of repo, one of "other/repo", and a
// token, and checkpoints every chain after the fourth version of repo.
func auditHistory(t *testing.T, s AuditStore) {
	t.Helper()
	for i := range 4 {
		apply(t, s, write(repo, at(i), contents{"MEMORY.md": fmt.Sprintf("- line %d\n", i)}))
	}
	apply(t, s, write("other/repo", at(4), contents{"a.md": "a"}))
	if _, err := audit.Checkpoint(context.Background(), s, auditKey, at(5)); err != nil {
		t.Fatal(err)
	}
	apply(t, s, write(repo, at(6), contents{"MEMORY.md": "- last\n"}))
	verifyClean(t, s)
}

func testAuditRecords(t *testing.T, s AuditStore) {
	ctx := context.Background()
	apply(t, s, write(repo, at(0), contents{"MEMORY.md": "- one\n", "a.md": "a"}))
	w := write(repo, at(1), contents{"MEMORY.md": "- two\n"}, "a.md")
	w.Author, w.Provenance = "ana", server.Provenance{Subject: "ana", Credential: "session:x", Surface: server.SurfaceRestore, Client: "Firefox"}
	apply(t, s, w)
	admin := server.AuditActor{Subject: "operator:root@host", Surface: "cli"}
	actx := server.WithAuditActor(ctx, admin)
	tok := server.IssuedToken{ID: "0123456789abcdef01234567", Subject: "ci", Grants: []string{"acme/*:write"}, IssuedAt: at(2), ExpiresAt: at(3600)}
	for range 2 { // recorded again: no second record
		if err := s.RecordToken(actx, tok); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Revoke(actx, server.Revocation{TokenID: tok.ID, At: at(3)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.EraseRepo(actx, repo); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	err := s.AuditEntries(ctx, server.AuditQuery{All: true}, func(e server.AuditEntry) error {
		var r server.AuditRecord
		if err := json.Unmarshal(e.Body, &r); err != nil {
			return err
		}
		var keys []string
		for _, c := range r.Changes {
			keys = append(keys, string(c.Op)+" "+c.Key)
		}
		got[e.Chain] = append(got[e.Chain], fmt.Sprintf("%d %s by %s/%s v%d %s", e.Seq, r.Action, r.By.Subject, r.By.Surface, r.Version, strings.Join(keys, ",")))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		repo: {"1 write by alice/agent v1 put MEMORY.md,put a.md", "2 write by ana/restore v2 put MEMORY.md,delete a.md",
			"3 erase by operator:root@host/cli v3 "},
		server.ServerChain: {"1 token.create by operator:root@host/cli v0 ", "2 token.revoke by operator:root@host/cli v0 "},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("audit entries:\n got %q\nwant %q", got, want)
	}
	var mine []int64
	err = s.AuditEntries(ctx, server.AuditQuery{All: true, Subject: "ana"}, func(e server.AuditEntry) error {
		mine = append(mine, e.Seq)
		return nil
	})
	if err != nil || fmt.Sprint(mine) != "[2]" {
		t.Errorf("ana's own entries = %v, %v; want [2]", mine, err)
	}
	var since int
	err = s.AuditEntries(ctx, server.AuditQuery{All: true, Since: at(2)}, func(server.AuditEntry) error { since++; return nil })
	if err != nil || since != 3 {
		t.Errorf("entries since %v = %d, %v; want 3", at(2), since, err)
	}
	verifyClean(t, s)
}

// entryOf reads one entry.
func entryOf(t *testing.T, s AuditStore, chain string, seq int64) server.AuditEntry {
	t.Helper()
	var found server.AuditEntry
	err := s.AuditEntries(context.Background(), server.AuditQuery{Chain: chain}, func(e server.AuditEntry) error {
		if e.Seq == seq {
			found = e
		}
		return nil
	})
	if err != nil || found.Seq != seq {
		t.Fatalf("entry %q/%d: %v", chain, seq, err)
	}
	return found
}

// tamperings are the hand edits Verify must find (auditHistory's log:
// repo's entries 1-5, checkpointed at 4).
var tamperings = []struct {
	name   string
	tamper func(t *testing.T, s AuditStore, in Intruder)
	want   string
}{
	{"Edited", func(t *testing.T, s AuditStore, in Intruder) {
		e := entryOf(t, s, repo, 2)
		in.SetEntry(t, repo, 2, bytes.Replace(e.Body, []byte("alice"), []byte("mallo"), 1), e.Prev, e.Hash)
	}, "entry 2: its hash is not its content's"},
	{"EditedAndRehashed", func(t *testing.T, s AuditStore, in Intruder) {
		rewrite(t, s, in, 2)
	}, "entry 4: differs from the checkpoint"},
	{"EditedAfterCheckpoint", func(t *testing.T, s AuditStore, in Intruder) {
		e := entryOf(t, s, repo, 5)
		in.SetEntry(t, repo, 5, bytes.Replace(e.Body, []byte("alice"), []byte("mallo"), 1), e.Prev, e.Hash)
	}, "entry 5: its hash is not its content's"},
	{"Reordered", func(t *testing.T, s AuditStore, in Intruder) {
		in.MoveEntry(t, repo, 2, 99)
		in.MoveEntry(t, repo, 3, 2)
		in.MoveEntry(t, repo, 99, 3)
	}, "entry 2: its hash is not its content's"},
	{"DeletedInTheMiddle", func(t *testing.T, s AuditStore, in Intruder) {
		in.DeleteEntry(t, repo, 3)
	}, "entry 4: entries 3 to 3 are missing"},
	{"DeletedAtTheEnd", func(t *testing.T, s AuditStore, in Intruder) {
		in.DeleteEntry(t, repo, 5)
	}, "the head names entry 5 but the log ends at entry 4"},
	{"DeletedAtTheEndAndHeadMoved", func(t *testing.T, s AuditStore, in Intruder) {
		e := entryOf(t, s, repo, 4)
		in.DeleteEntry(t, repo, 5)
		in.DeleteEntry(t, repo, 4)
		in.SetHead(t, repo, 3, e.Prev)
	}, "entry 4: signed at"},
	{"DeletedAtTheStart", func(t *testing.T, s AuditStore, in Intruder) {
		in.DeleteEntry(t, repo, 1)
	}, "entry 2: the chain starts here with no signed checkpoint at entry 1"},
}

// rewrite replaces "alice" by "mallo" in entry from of repo and
// recomputes every hash from there on, and the head, as an intruder who
// knows the scheme but not the key would.
func rewrite(t *testing.T, s AuditStore, in Intruder, from int64) {
	var entries []server.AuditEntry
	err := s.AuditEntries(context.Background(), server.AuditQuery{Chain: repo}, func(e server.AuditEntry) error {
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	prev := entries[from-2].Hash
	for _, e := range entries[from-1:] {
		body := e.Body
		if e.Seq == from {
			body = bytes.Replace(body, []byte("alice"), []byte("mallo"), 1)
		}
		h := server.AuditHash(prev, e.Seq, body)
		in.SetEntry(t, repo, e.Seq, body, prev, h)
		prev = h
	}
	in.SetHead(t, repo, entries[len(entries)-1].Seq, prev)
}

func verifyClean(t *testing.T, s server.AuditLog) audit.Report {
	t.Helper()
	r, err := audit.Verify(context.Background(), s, auditPub())
	if err != nil || len(r.Problems) > 0 {
		t.Fatalf("Verify of an untouched log = %v, %v; want no problem", r.Problems, err)
	}
	return r
}

func wantProblem(t *testing.T, s server.AuditLog, want string) {
	t.Helper()
	if want == "" {
		verifyClean(t, s)
		return
	}
	r, err := audit.Verify(context.Background(), s, auditPub())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Problems {
		if strings.Contains(p.String(), want) {
			return
		}
	}
	t.Errorf("Verify found %q; want a problem holding %q", r.Problems, want)
}

// testAuditPrune: pruning keeps each chain from its newest checkpoint
// before the cut, the pruned chain verifies, and editing the first entry
// left is still found.
func testAuditPrune(t *testing.T, s AuditStore, in Intruder) {
	ctx := context.Background()
	auditHistory(t, s)
	if _, err := audit.Checkpoint(ctx, s, auditKey, at(10)); err != nil {
		t.Fatal(err)
	}
	apply(t, s, write(repo, at(11), contents{"MEMORY.md": "- after\n"}))
	n, err := s.PruneAudit(ctx, at(9)) // the anchors: the checkpoints at 5
	if err != nil || n != 5 {
		t.Fatalf("PruneAudit = %d, %v; want 5 (repo's 1-4, other/repo's 1)", n, err)
	}
	if r := verifyClean(t, s); r.Entries != 2 {
		t.Errorf("after pruning, %d entries; want 2 (repo's 5 and 6)", r.Entries)
	}
	if n, err := s.PruneAudit(ctx, at(9)); err != nil || n != 0 {
		t.Errorf("PruneAudit again = %d, %v; want 0", n, err)
	}
	e := entryOf(t, s, repo, 5)
	in.SetEntry(t, repo, 5, bytes.Replace(e.Body, []byte("alice"), []byte("mallo"), 1), e.Prev, e.Hash)
	wantProblem(t, s, "entry 5: its hash is not its content's")
}

// ConcurrentAudit writes one repository and appends to the server's
// chain from many goroutines through each of stores (several processes on
// one database): every chain still verifies and holds every record.
func ConcurrentAudit(t *testing.T, stores ...AuditStore) {
	ctx := context.Background()
	const each = 8
	var wg sync.WaitGroup
	for i, s := range stores {
		for g := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := range each {
					w := write(repo, time.Now(), contents{fmt.Sprintf("k%d-%d-%d.md", i, g, n): "x"})
					if _, err := s.Apply(ctx, w); err != nil {
						t.Error(err)
						return
					}
					rec := server.AuditRecord{At: time.Now(), Action: "test", By: server.AuditActor{Subject: "t"}}
					if err := s.AppendAudit(ctx, []server.AuditRecord{rec, rec}); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	r := verifyClean(t, stores[0])
	if want := int64(len(stores) * 3 * each * 3); r.Entries != want {
		t.Errorf("%d entries; want %d", r.Entries, want)
	}
}

// ConcurrentAuditBeside appends to the server's chain through s and
// through beside (the command line's view of the same database) at once,
// with writes through s: the chains hold every record.
func ConcurrentAuditBeside(t *testing.T, s AuditStore, beside server.AuditLog) {
	ctx := context.Background()
	var wg sync.WaitGroup
	for i, l := range []server.AuditLog{s, beside} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 10 {
				apply(t, s, write(repo, time.Now(), contents{fmt.Sprintf("k%d-%d.md", i, n): "x"}))
				rec := server.AuditRecord{At: time.Now(), Action: "test", By: server.AuditActor{Subject: "t"}}
				if err := l.AppendAudit(ctx, []server.AuditRecord{rec}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if r := verifyClean(t, beside); r.Entries != 40 {
		t.Errorf("%d entries; want 40", r.Entries)
	}
}
