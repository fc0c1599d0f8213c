package health_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
)

// wes may write acme/messy but not review it.
var wes = server.Principal{Subject: "wes", Credential: "token:w1",
	Grants: []server.Grant{{Glob: []string{"acme", "messy"}, Perm: server.PermWrite}}}

// proposalOf reads the proposal tidy answered id for.
func proposalOf(t *testing.T, svc *server.Service, id string) server.ProposalView {
	t.Helper()
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		t.Fatalf("proposal id %q: %v", id, err)
	}
	v, err := svc.Proposal(context.Background(), admin, n)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestTidyThroughReviewOnStores: with review off, a tidy is a proposal
// waiting for an admin, by whoever asked, through the consolidation
// surface; asking again (on this Checker or another over the same store)
// answers that proposal; an admin's approval applies it, every folded
// text stays in its key's history and restore brings it back; tidy then
// proposes nothing. On both stores.
func TestTidyThroughReviewOnStores(t *testing.T) {
	stores(t, t.Run, func(t *testing.T, s server.Store) {
		ctx := context.Background()
		repo := "acme/messy"
		files := messy()
		svc := server.NewService(s, server.Config{Review: s.(server.ReviewStore)})
		seedStore(t, s, repo, files, written)
		checker := &health.Checker{Service: svc}
		id, plan, err := checker.Propose(ctx, wes, repo, "rest", health.Selection{})
		if err != nil || id == "" || plan.Empty() {
			t.Fatalf("propose: %q, %d changes, %v", id, len(plan.Changes), err)
		}
		if st, _ := s.RepoState(ctx, repo); st.Version != 1 {
			t.Fatalf("tidy wrote with review off: version %d", st.Version)
		}
		prop := proposalOf(t, svc, id)
		if prop.State != server.ProposalOpen || prop.Author != "wes" || prop.BaseVersion != plan.Base ||
			prop.Provenance.Surface != server.SurfaceConsolidation || prop.Provenance.Client != "teammem tidy (rest)" ||
			prop.Provenance.Credential != "token:w1" || len(prop.Changes) != len(plan.Changes) {
			t.Fatalf("proposal %+v", prop.Proposal)
		}
		for _, c := range prop.Changes {
			if want := map[string]string{"pool-copy.md": "folded into pool.md"}[c.Key]; want != "" && c.Note != want {
				t.Errorf("the note of %s: %q, want %q", c.Key, c.Note, want)
			}
		}
		replica := &health.Checker{Service: server.NewService(s, server.Config{Review: s.(server.ReviewStore)})}
		for _, c := range []*health.Checker{checker, replica} {
			if again, _, err := c.Propose(ctx, admin, repo, "web", health.Selection{}); err != nil || again != id {
				t.Errorf("a replayed tidy answered %q, %v; want %s", again, err, id)
			}
		}
		if open, _ := s.(server.ReviewStore).OpenProposals(ctx); open[repo] != 1 {
			t.Errorf("%d open proposals after the replays; want 1", open[repo])
		}
		n, _ := strconv.ParseInt(id, 10, 64)
		if _, err := svc.Decide(ctx, wes, n, server.DecideApprove, "", server.Provenance{}); err == nil {
			t.Error("a writer approved its own tidy")
		}
		done, err := svc.Decide(ctx, admin, n, server.DecideApprove, "", server.Provenance{Surface: server.SurfaceREST})
		if err != nil || done.AppliedVersion != 2 {
			t.Fatalf("approve: %+v, %v", done, err)
		}
		checkReachable(t, s, repo, files, plan)
		if id, plan, err := checker.Propose(ctx, wes, repo, "rest", health.Selection{}); err != nil || id != "" || !plan.Empty() {
			t.Errorf("tidy after the approved tidy: %q, %+v, %v", id, plan.Changes, err)
		}
		checkFolded(t, svc, repo, files, n)
	})
}

// checkFolded checks that pool-copy.md, folded by the approved proposal
// n (whose change of it names its successor), is a tombstone written by
// it whose old text its history holds, and that restoring that text
// brings the key back.
func checkFolded(t *testing.T, svc *server.Service, repo string, files map[string]string, n int64) {
	t.Helper()
	ctx := context.Background()
	const key = "pool-copy.md"
	revs, err := svc.History(ctx, admin, repo, key, 0, 10)
	if err != nil || len(revs) != 2 {
		t.Fatalf("history of %s: %+v, %v", key, revs, err)
	}
	del, put := revs[0], revs[1]
	if del.Op != server.OpDelete || del.Provenance.Proposal != n || del.Provenance.ApprovedBy != "admin" ||
		del.Provenance.Subject != "wes" || del.Provenance.Surface != server.SurfaceConsolidation {
		t.Errorf("the fold of %s: %+v", key, del)
	}
	old, err := svc.Revision(ctx, admin, repo, key, put.Version)
	if err != nil || old.Content != files[key] {
		t.Fatalf("the folded text: %q, %v", old.Content, err)
	}
	res, err := svc.Put(ctx, admin, repo, server.PutInput{Entries: map[string]string{key: old.Content},
		Provenance: server.Provenance{Surface: server.SurfaceRestore}})
	if err != nil || len(res.Changed) != 1 {
		t.Fatalf("restore: %+v, %v", res, err)
	}
	if back, err := svc.Revision(ctx, admin, repo, key, 0); err != nil || back.Content != files[key] {
		t.Errorf("restored %s: %q, %v", key, back.Content, err)
	}
}
