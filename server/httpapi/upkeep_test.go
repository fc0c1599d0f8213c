package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

// onStores runs f against a server on the embedded store and one on
// Postgres.
func onStores(t *testing.T, o servertest.Options, f func(t *testing.T, ts *testServer)) {
	t.Run("sqlite", func(t *testing.T) { f(t, newTestServer(t, o)) })
	t.Run("postgres", func(t *testing.T) {
		db, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		o.Store = db
		f(t, newTestServer(t, o))
	})
}

// untidy is a repository with a duplicate, a near-duplicate, a
// conflict, a dangling line and an orphan.
var untidy = map[string]string{
	"MEMORY.md":   "- [Pool](pool.md) — pgbouncer\n- [Gone](gone.md) — deleted\n- [CI](ci.md) — disk\n",
	"pool.md":     "Use PgBouncer in transaction mode; pool_max_conns: 16\n",
	"pool-2.md":   "use pgbouncer in   transaction mode; POOL_MAX_CONNS: 16\n",
	"tuning.md":   "- pool_max_conns: 32\n",
	"ci.md":       "When the CI runner runs out of disk, clear the docker build cache with docker builder prune before retrying the pipeline.\n",
	"ci-again.md": "If the CI runner is out of disk, clear the docker build cache (docker builder prune) before you retry the pipeline.\n",
}

func kindsOf(r api.HealthReport) []string {
	var out []string
	for _, f := range r.Findings {
		if !slices.Contains(out, f.Kind) {
			out = append(out, f.Kind)
		}
		if (f.Score != nil) != (f.Kind == health.KindNearDuplicate) {
			t := "near-duplicate without"
			if f.Score != nil {
				t = f.Kind + " with"
			}
			out = append(out, t+" a score")
		}
	}
	return out
}

func TestHealthReport(t *testing.T) {
	onStores(t, servertest.Options{}, func(t *testing.T, ts *testServer) {
		ts.Put("acme/api", untidy, nil, http.StatusOK)
		reader := ts.Token("rita", "acme/api:read")
		r := ts.Do(http.MethodGet, api.PathHealth+"?repo=acme/api", reader, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		rep := servertest.Decode[api.HealthReport](t, r)
		want := []string{health.KindDuplicate, health.KindNearDuplicate, health.KindConflictingValues, health.KindDanglingLink, health.KindOrphanTopic}
		if got := kindsOf(rep); !slices.Equal(got, want) || rep.Repo != "acme/api" || rep.Version != 1 {
			t.Errorf("kinds %v, repo %s v%d; want %v of acme/api v1", got, rep.Repo, rep.Version, want)
		}
		metrics := ts.Do(http.MethodGet, api.PathMetrics, "", nil)
		if !strings.Contains(string(metrics.Body), `teammem_health_findings{kind="duplicate",repo="acme/api"} 1`) {
			t.Errorf("no gauge of the duplicates in /metrics")
		}
	})
}

func TestHealthRefusals(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", untidy, nil, http.StatusOK)
	ana := ts.Token("ana", "acme/web:admin")
	own := ts.Token("ana", "acme/*:read")
	for _, c := range []struct {
		name, token, repo string
		want              int
	}{
		{"no token", "", "acme/api", http.StatusUnauthorized},
		{"another repository's grant", ana, "acme/api", http.StatusForbidden},
		{"never written", own, "acme/nothing", http.StatusNotFound},
		{"own personal repository, never written", own, "~/acme/api", http.StatusNotFound},
		{"bad repo", own, "acme/../etc", http.StatusBadRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := ts.Do(http.MethodGet, api.PathHealth+"?repo="+c.repo, c.token, nil)
			if r.Status != c.want {
				t.Errorf("status %d, want %d: %s", r.Status, c.want, r.Body)
			}
			if r.Status == http.StatusForbidden && strings.Contains(string(r.Body), "pool") {
				t.Errorf("a refusal shows content: %s", r.Body)
			}
		})
	}
	other := ts.Token("bob", "**:read")
	personal := server.PersonalRepo("ana", "acme/api")
	if _, err := ts.Store.Apply(context.Background(), server.Write{Repo: personal, Author: "ana", Provenance: server.UnknownProvenance("ana"),
		Puts: []server.Put{{Key: "a.md", Content: "x", Checksum: "sha256:" + strings.Repeat("0", 64)}}}); err != nil {
		t.Fatal(err)
	}
	if r := ts.Do(http.MethodGet, api.PathHealth+"?repo="+personal, other, nil); r.Status != http.StatusForbidden {
		t.Errorf("bob read ana's personal repository's health: %d %s", r.Status, r.Body)
	}
}

// tidyOf posts a tidy of acme/api and decodes its answer.
func tidyOf(t *testing.T, ts *testServer, token, query string) api.TidyResponse {
	t.Helper()
	r := ts.Do(http.MethodPost, api.PathTidy+"?repo=acme/api"+query, token, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("tidy: status %d: %s", r.Status, r.Body)
	}
	return servertest.Decode[api.TidyResponse](t, r)
}

// openProposals lists the open proposals of acme/api.
func openProposals(t *testing.T, ts *testServer) []api.Proposal {
	t.Helper()
	r := ts.Do(http.MethodGet, api.PathProposals+"?repo=acme/api&state=open", ts.Admin, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("proposals: status %d: %s", r.Status, r.Body)
	}
	return servertest.Decode[api.Proposals](t, r).Proposals
}

// TestTidyProposes: a writer's tidy is one proposal through the review
// of proposals, by the writer through the consolidation surface, while
// review is off; asking again (the writer or an admin) answers the same
// proposal; an admin's approval applies it, the folded key's old text
// stays in its history, and tidy then proposes nothing. On both stores.
func TestTidyProposes(t *testing.T) {
	onStores(t, servertest.Options{}, func(t *testing.T, ts *testServer) {
		ts.Put("acme/api", untidy, nil, http.StatusOK)
		writer := ts.Token("wes", "acme/api:write")
		res := tidyOf(t, ts, writer, "")
		if res.Proposal == "" || res.Base != 1 {
			t.Fatalf("response %+v", res)
		}
		var deleted []string
		for _, c := range res.Changes {
			if c.Delete {
				deleted = append(deleted, c.Key+": "+c.Note)
			}
		}
		if want := []string{"pool-2.md: folded into pool.md"}; !slices.Equal(deleted, want) {
			t.Errorf("deletes %q, want %q", deleted, want)
		}
		if st, _ := ts.Store.RepoState(context.Background(), "acme/api"); st.Version != 1 {
			t.Errorf("tidy wrote with review off: version %d", st.Version)
		}
		open := openProposals(t, ts)
		if len(open) != 1 || fmt.Sprint(open[0].ID) != res.Proposal || open[0].Author != "wes" || open[0].Provenance == nil ||
			open[0].Provenance.Surface != "consolidation" || open[0].Provenance.Client != "teammem tidy (rest)" || len(open[0].Keys) != len(res.Changes) {
			t.Fatalf("open proposals %+v; want tidy's %s by wes", open, res.Proposal)
		}
		for _, token := range []string{writer, ts.Admin} {
			if again := tidyOf(t, ts, token, ""); again.Proposal != res.Proposal {
				t.Errorf("a replayed tidy made proposal %q; want %s", again.Proposal, res.Proposal)
			}
		}
		dry := tidyOf(t, ts, writer, "&dry_run=1&kinds=dangling-link")
		if dry.Proposal != "" || len(dry.Changes) != 1 || dry.Changes[0].Key != "MEMORY.md" {
			t.Errorf("dry run %+v made a proposal or planned more than asked", dry)
		}
		if n := len(openProposals(t, ts)); n != 1 {
			t.Errorf("%d open proposals after the replays and the dry run; want 1", n)
		}
		detail := servertest.Decode[api.ProposalDetail](t, ts.Do(http.MethodGet, api.PathProposals+"/"+res.Proposal, writer, nil))
		if i := slices.IndexFunc(detail.Changes, func(c api.ProposalChange) bool { return c.Key == "pool-2.md" }); i < 0 ||
			detail.Changes[i].Note != "folded into pool.md" || detail.Changes[i].Content != nil {
			t.Errorf("the proposal's changes: %+v", detail.Changes)
		}
		approve := api.PathProposals + "/" + res.Proposal + "/approve"
		if r := ts.Do(http.MethodPost, approve, writer, []byte("{}")); r.Status != http.StatusForbidden {
			t.Errorf("the writer approved its own tidy: %d %s", r.Status, r.Body)
		}
		if r := ts.Do(http.MethodPost, approve, ts.Admin, []byte("{}")); r.Status != http.StatusOK {
			t.Fatalf("approve: %d %s", r.Status, r.Body)
		}
		checkFoldedKey(t, ts, "pool-2.md", untidy["pool-2.md"], res.Proposal)
		if after := tidyOf(t, ts, writer, ""); after.Proposal != "" || len(after.Changes) != 0 {
			t.Errorf("tidy after the approved tidy: %+v", after)
		}
	})
}

// checkFoldedKey checks that key is a tombstone written by the approval
// of proposal, and that its history holds old, its text before.
func checkFoldedKey(t *testing.T, ts *testServer, key, old, proposal string) {
	t.Helper()
	hist := servertest.Decode[api.History](t, ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key="+key, ts.Admin, nil))
	if len(hist.Revisions) != 2 || hist.Revisions[0].Op != "delete" || hist.Revisions[0].Provenance == nil ||
		fmt.Sprint(hist.Revisions[0].Provenance.Proposal) != proposal || hist.Revisions[0].Provenance.Subject != "wes" {
		t.Fatalf("history of %s: %+v", key, hist.Revisions)
	}
	q := fmt.Sprintf("?repo=acme/api&key=%s&version=%d", key, hist.Revisions[1].Version)
	rev := servertest.Decode[api.RevisionContent](t, ts.Do(http.MethodGet, api.PathRevision+q, ts.Admin, nil))
	if rev.Content != old {
		t.Errorf("the folded text: %q, want %q", rev.Content, old)
	}
}

// TestTidyReplayAcrossReplicas: tidies asked at once through two
// replicas on the same database (a double click behind a load balancer)
// make one proposal, and asking again later answers it too.
func TestTidyReplayAcrossReplicas(t *testing.T) {
	a, b := pgReplicas(t)
	a.Put("acme/api", untidy, nil, http.StatusOK)
	writer := a.Token("wes", "acme/api:write")
	got := make([]string, 6)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			ts := []*testServer{a, b}[i%2]
			if r := ts.Do(http.MethodPost, api.PathTidy+"?repo=acme/api", writer, nil); r.Status == http.StatusOK {
				got[i] = servertest.Decode[api.TidyResponse](t, r).Proposal
			} else {
				t.Errorf("tidy: %d %s", r.Status, r.Body)
			}
		})
	}
	wg.Wait()
	for _, id := range got {
		if id == "" || id != got[0] {
			t.Fatalf("tidies at once through two replicas answered %q; want one proposal", got)
		}
	}
	if again := tidyOf(t, b, writer, ""); again.Proposal != got[0] {
		t.Errorf("replica b answered proposal %q; want %s", again.Proposal, got[0])
	}
	if n := len(openProposals(t, b)); n != 1 {
		t.Errorf("%d open proposals; want 1", n)
	}
}

func TestTidyRefusals(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", untidy, nil, http.StatusOK)
	reader := ts.Token("rita", "acme/api:read")
	writer := ts.Token("wes", "acme/api:write")
	elsewhere := ts.Token("otto", "acme/web:admin")
	for _, c := range []struct {
		name, token, query string
		headers            []string
		want               int
		says               string
	}{
		{"read grant", reader, "repo=acme/api", nil, http.StatusForbidden, "write access"},
		{"read grant, dry run", reader, "repo=acme/api&dry_run=1", nil, http.StatusForbidden, "write access"},
		{"another repository's grant", elsewhere, "repo=acme/api", nil, http.StatusForbidden, "write access"},
		{"unknown kind", writer, "repo=acme/api&kinds=typo", nil, http.StatusBadRequest, "not a kind tidy fixes"},
		{"a kind for a person", writer, "repo=acme/api&kinds=near-duplicate", nil, http.StatusBadRequest, "not a kind tidy fixes"},
		{"from another site", writer, "repo=acme/api", []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden, "another origin"},
		{"a form", writer, "repo=acme/api", []string{"Content-Type", "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType, "form"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := ts.Do(http.MethodPost, api.PathTidy+"?"+c.query, c.token, nil, c.headers...)
			if r.Status != c.want || !strings.Contains(string(r.Body), c.says) {
				t.Errorf("status %d, want %d saying %q: %s", r.Status, c.want, c.says, r.Body)
			}
		})
	}
	if st, _ := ts.Store.RepoState(context.Background(), "acme/api"); st.Version != 1 {
		t.Errorf("a refused tidy wrote: version %d", st.Version)
	}
	if open := openProposals(t, ts); len(open) != 0 {
		t.Errorf("a refused tidy proposed: %+v", open)
	}
	personal := server.PersonalRepo("ana", "acme/api")
	seedPersonal(t, ts, personal)
	ana := ts.Token("ana", "acme/web:read")
	r := ts.Do(http.MethodPost, api.PathTidy+"?repo="+personal, ana, nil)
	if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "personal repository has no review") {
		t.Errorf("a tidy of the owner's personal repository: %d %s", r.Status, r.Body)
	}
	if r := ts.Do(http.MethodPost, api.PathTidy+"?repo="+personal+"&dry_run=1", ana, nil); r.Status != http.StatusOK {
		t.Errorf("the owner's dry run: %d %s", r.Status, r.Body)
	}
}

// seedPersonal writes a duplicate into a personal repository.
func seedPersonal(t *testing.T, ts *testServer, repo string) {
	t.Helper()
	w := server.Write{Repo: repo, Author: "ana", Provenance: server.UnknownProvenance("ana")}
	for _, k := range []string{"a.md", "b.md"} {
		w.Puts = append(w.Puts, server.Put{Key: k, Content: "same\n", Checksum: protocol.EntryChecksum([]byte("same\n"))})
	}
	if _, err := ts.Store.Apply(context.Background(), w); err != nil {
		t.Fatal(err)
	}
}

// TestHealthAcrossReplicas: a write through one replica is in the health
// the other reports.
func TestHealthAcrossReplicas(t *testing.T) {
	a, b := pgReplicas(t)
	a.Put("acme/api", untidy, nil, http.StatusOK)
	rep := servertest.Decode[api.HealthReport](t, b.Do(http.MethodGet, api.PathHealth+"?repo=acme/api", b.Admin, nil))
	if rep.Version != 1 || len(rep.Findings) == 0 {
		t.Fatalf("the other replica reports %+v", rep)
	}
	a.Put("acme/api", map[string]string{"MEMORY.md": untidy["MEMORY.md"] + "- [x](pool-2.md) [y](ci-again.md) [z](tuning.md)\n"}, []string{"pool-2.md"}, http.StatusOK)
	rep = servertest.Decode[api.HealthReport](t, b.Do(http.MethodGet, api.PathHealth+"?repo=acme/api", b.Admin, nil))
	if rep.Version != 2 || slices.Contains(kindsOf(rep), health.KindDuplicate) || slices.Contains(kindsOf(rep), health.KindOrphanTopic) {
		t.Errorf("after the write through a, b reports %+v", rep)
	}
}
