package health_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
)

// messy is a repository with a finding of every kind: two copies of one
// lesson (one linked, one not), a line linking a deleted topic, an orphan,
// an index of 260 lines, a stale reference, a topic unread for a year.
func messy() map[string]string {
	files := map[string]string{
		"pool.md":       "---\nname: Pool\ntype: project\n---\nUse PgBouncer in transaction mode; pool_max_conns: 16\n",
		"pool-copy.md":  "---\ntype: project\nname: pool\n---\nuse pgbouncer in  transaction mode; pool_max_conns: 16\n",
		"pool-again.md": "---\nname: Pool again\n---\nUse pgbouncer in transaction mode; pool_max_conns: 16\n",
		"tuning.md":     "- pool_max_conns: 32\n",
		"ci-disk.md":    "# CI disk\n\n" + reworded1 + "\n",
		"ci-space.md":   "# Out of disk on CI\n\n" + reworded2 + "\n",
		"lost.md":       "---\nname: Lost lesson\ndescription: nobody links this\n---\nBody.\n",
		"old.md":        "A lesson nobody reads.\n",
		"push.md":       "See `client/push.go`.\n",
	}
	var index strings.Builder
	for _, k := range []string{"pool.md", "pool-copy.md", "tuning.md", "ci-disk.md", "ci-space.md", "old.md", "push.md", "gone.md"} {
		fmt.Fprintf(&index, "- [%s](%s) — about %s\n", k, k, k)
	}
	for i := range 250 {
		k := fmt.Sprintf("notes/n%03d.md", i)
		files[k] = fmt.Sprintf("Note number %d says w%d.\n", i, i*7919)
		fmt.Fprintf(&index, "- [Note %d](%s) — a note\n", i, k)
	}
	files["MEMORY.md"] = index.String()
	return files
}

// messyCase is messy as a kindCase: pool-again.md unread for a year,
// push.md's reference stale, the unused check on.
func messyCase() kindCase {
	c := kindCase{files: messy(), unused: 90 * 24 * time.Hour,
		stale: map[string][]server.StaleFinding{"push.md": {{Reference: "client/push.go", Reason: server.StaleMissing}}},
		reads: map[string]time.Duration{}}
	for k := range c.files {
		c.reads[k] = time.Hour
	}
	c.reads["old.md"] = 365 * 24 * time.Hour
	return c
}

func TestTidyConvergesOnStores(t *testing.T) {
	stores(t, t.Run, func(t *testing.T, s server.Store) {
		ctx := context.Background()
		c := messyCase()
		repo := "github.com/acme/messy"
		svc := server.NewService(s, server.Config{Now: func() time.Time { return testNow }})
		seedStore(t, s, repo, c.files, written)
		reportStale(t, svc, repo, c)
		o := health.Options{Now: testNow, UnusedAfter: c.unused, Reads: func(context.Context, string) (map[string]time.Time, time.Time, error) {
			return reads(c), written, nil
		}}
		before, err := health.Gather(ctx, svc, admin, repo, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range health.Kinds {
			if before.Count()[k] == 0 {
				t.Errorf("the messy repository has no %s finding: %+v", k, before.Findings)
			}
		}
		in, err := health.Read(ctx, svc, admin, repo, o)
		if err != nil {
			t.Fatal(err)
		}
		plan := health.Plan(in, before, nil)
		if plan.Empty() {
			t.Fatal("empty plan")
		}
		t.Logf("plan: %d changes; %s", len(plan.Changes), strings.Join(plan.Fixes, "; "))
		w := plan.Write()
		w.Author, w.Provenance, w.At = "admin", server.UnknownProvenance("admin"), testNow
		if _, err := s.Apply(ctx, w); err != nil {
			t.Fatal(err)
		}
		after, err := health.Gather(ctx, svc, admin, repo, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range health.Fixable {
			if n := after.Count()[k]; n != 0 {
				t.Errorf("after tidy, %d %s findings: %+v", n, k, after.Findings)
			}
		}
		for _, k := range []string{health.KindNearDuplicate, health.KindConflictingValues, health.KindStaleReference} {
			if after.Count()[k] == 0 {
				t.Errorf("tidy fixed the %s findings, which need a person", k)
			}
		}
		in, err = health.Read(ctx, svc, admin, repo, o)
		if err != nil {
			t.Fatal(err)
		}
		if again := health.Plan(in, after, nil); !again.Empty() {
			t.Errorf("a second plan is not empty: %+v", again.Changes)
		}
		checkReachable(t, s, repo, c.files, plan)
	})
}

// checkReachable checks that every topic of files is live and linked from
// an index after the plan, or deleted by it with its text in its history.
func checkReachable(t *testing.T, s server.Store, repo string, files map[string]string, plan health.TidyPlan) {
	t.Helper()
	ctx := context.Background()
	snap, err := s.Snapshot(ctx, repo, server.ReadOptions{WithContent: true})
	if err != nil {
		t.Fatal(err)
	}
	linked, live := map[string]bool{}, map[string]bool{}
	for _, e := range snap.Live {
		live[e.Key] = true
		if health.IsIndex(e.Key) {
			for _, l := range protocol.IndexLines("", e.Content) {
				for _, k := range l.Keys {
					linked[k] = true
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(files)) {
		switch {
		case k == health.RootIndex:
		case live[k] && !linked[k]:
			t.Errorf("%s is live but no index links it", k)
		case !live[k]:
			i := slices.IndexFunc(plan.Changes, func(c health.Change) bool { return c.Key == k })
			if i < 0 || !plan.Changes[i].Delete || plan.Changes[i].Note == "" {
				t.Errorf("%s gone without a noted delete", k)
			}
			found := false
			err := s.KeyRevisions(ctx, repo, k, 0, func(r server.Revision) error {
				found = found || (r.Op == server.OpPut && r.Content == files[k])
				return nil
			})
			if err != nil || !found {
				t.Errorf("%s's text is not in its history (%v)", k, err)
			}
		}
	}
}
