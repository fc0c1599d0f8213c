package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/audit"
)

// ServedStore is a store with its served records.
type ServedStore interface {
	server.Store
	server.ServedLog
}

// ServedRecords checks a store's served records through a replica's
// audit.Coalescer: the servings of one version in one window are one
// record, saved when made and again when flushed whole; a second replica keeps its own;
// audit.HeldAt answers the version held at a time with the index lines
// of MEMORY.md at that version, and what MCP served around then; a pull
// after the time is not counted; pruning drops the records last served
// before the cut.
func ServedRecords(t *testing.T, s ServedStore) {
	ctx := context.Background()
	apply(t, s, write(repo, at(0), contents{"MEMORY.md": "# Index\n- [Deploys](deploys.md) — runbook\n", "deploys.md": "d"}))
	apply(t, s, write(repo, at(1), contents{"MEMORY.md": "# Index\n- [Deploys](deploys.md) — runbook\n- [Tests](tests.md) — how\n", "tests.md": "t"}))
	a, b := audit.NewCoalescer(s, "replica-a"), audit.NewCoalescer(s, "replica-b")
	serve := func(c *audit.Coalescer, sec int, version int64, surface server.ServedSurface, keys ...string) {
		c.Served(server.Served{Subject: "ana", Repo: repo, Version: version, Surface: surface, Keys: keys, At: at(sec)})
	}
	for sec := 10; sec < 20; sec += 2 {
		serve(a, sec, 1, server.ServedPull)
	}
	flush(t, a, at(20), false)
	for sec := 20; sec < 30; sec += 2 {
		serve(a, sec, 1, server.ServedPull)
	}
	serve(a, 31, 1, server.ServedMCP, "deploys.md")
	serve(a, 32, 1, server.ServedMCP, "MEMORY.md", "deploys.md")
	serve(b, 40, 2, server.ServedDelta)
	serve(b, 42, 2, server.ServedPull)
	flush(t, a, at(45), false) // saves the new MCP record, not the pull's count
	if recs, err := s.ServedBefore(ctx, "ana", repo, at(100), 10); err != nil || len(recs) != 2 || recs[1].Count != 5 {
		t.Errorf("after a flush, %+v, %v; want the pull record as first saved (5 pulls) and the MCP one", recs, err)
	}
	flush(t, a, at(45), true)
	flush(t, b, at(45), true)
	if a.Open() != 2 {
		t.Errorf("replica a holds %d records; want 2 (its window is still open)", a.Open())
	}

	recs, err := s.ServedBefore(ctx, "ana", repo, at(100), 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%s v%d %s %d %v %s..%s", r.Surface, r.Version, r.Replica, r.Count, r.Keys, r.First.Sub(t0), r.Last.Sub(t0)))
	}
	want := []string{"pull v2 replica-b 1 [] 42s..42s", "delta v2 replica-b 1 [] 40s..40s",
		"mcp v1 replica-a 2 [MEMORY.md deploys.md] 31s..32s", "pull v1 replica-a 10 [] 10s..28s"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ServedBefore:\n got %q\nwant %q", got, want)
	}

	h, err := audit.HeldAt(ctx, s, "ana", repo, at(35))
	if err != nil || h.Pull == nil || h.Pull.Version != 1 || h.Index == nil || h.Index.Version != 1 ||
		fmt.Sprint(h.IndexLines) != "[- [Deploys](deploys.md) — runbook]" || len(h.Others) != 1 || h.Others[0].Surface != server.ServedMCP {
		t.Errorf("HeldAt(35s) = %+v, %v; want version 1, its one index line, and the MCP read", h, err)
	}
	if h, err := audit.HeldAt(ctx, s, "ana", repo, at(50)); err != nil || h.Pull == nil || h.Pull.Version != 2 || len(h.IndexLines) != 2 {
		t.Errorf("HeldAt(50s) = %+v, %v; want version 2 with two index lines", h, err)
	}
	if h, err := audit.HeldAt(ctx, s, "ana", repo, at(5)); err != nil || h.Pull != nil {
		t.Errorf("HeldAt before any pull = %+v, %v; want none", h, err)
	}
	if h, err := audit.HeldAt(ctx, s, "bob", repo, at(50)); err != nil || h.Pull != nil {
		t.Errorf("HeldAt of another subject = %+v, %v; want none", h, err)
	}
	if _, err := s.KeyAt(ctx, repo, "tests.md", 1); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("KeyAt of a key before it existed = %v; want ErrNotFound", err)
	}

	if n, err := s.PruneServed(ctx, at(39)); err != nil || n != 2 {
		t.Errorf("PruneServed(39s) = %d, %v; want 2 (the version 1 records)", n, err)
	}
	if recs, err := s.ServedBefore(ctx, "ana", repo, at(100), 10); err != nil || len(recs) != 2 {
		t.Errorf("after pruning, %d records, %v; want 2", len(recs), err)
	}
}

func flush(t *testing.T, c *audit.Coalescer, now time.Time, all bool) {
	t.Helper()
	if err := c.Flush(context.Background(), now, all); err != nil {
		t.Fatal(err)
	}
}
