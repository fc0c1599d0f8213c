package webui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

// seedUIRepo fills acme/ui with 1,000 live entries in 20 folders (about
// 1 kB each), a MEMORY.md linking 100 of them, a second version of 100
// entries, and 50 deleted entries.
func seedUIRepo(b *testing.B, ts *testServer) {
	b.Helper()
	body := strings.Repeat("Some remembered fact about the code base. ", 25)
	var index strings.Builder
	index.WriteString("# Team memory\n\n")
	for start := 0; start < 1049; start += 100 {
		entries := map[string]string{}
		for i := start; i < min(1049, start+100); i++ {
			key := fmt.Sprintf("topic-%02d/note-%04d.md", i%20, i)
			entries[key] = fmt.Sprintf("# Note %d\n\n%s\n", i, body)
			if i < 100 {
				fmt.Fprintf(&index, "- [Note %d](%s) — what it says\n", i, key)
			}
		}
		ts.Put("acme/ui", entries, nil, http.StatusOK)
	}
	ts.Put("acme/ui", map[string]string{"MEMORY.md": index.String()}, nil, http.StatusOK)
	second := map[string]string{}
	for i := 0; i < 100; i++ {
		second[fmt.Sprintf("topic-%02d/note-%04d.md", i%20, i)] = fmt.Sprintf("# Note %d, revised\n\n%s\n", i, body)
	}
	ts.Put("acme/ui", second, nil, http.StatusOK)
	var deletes []string
	for i := 999; i < 1049; i++ {
		deletes = append(deletes, fmt.Sprintf("topic-%02d/note-%04d.md", i%20, i))
	}
	ts.Put("acme/ui", nil, deletes, http.StatusOK)
}

// BenchmarkUIRepoPage1000 renders the page of a repository of 1,000 live
// entries (store reads, MEMORY.md rendering, template) through the real
// handler without the network; ns/op is the server-side time per page.
func BenchmarkUIRepoPage1000(b *testing.B) {
	benchUIPage(b, nil, "/ui/r/acme/ui")
}

// BenchmarkUIRepoPage1000Postgres is the same page on the Postgres store.
func BenchmarkUIRepoPage1000Postgres(b *testing.B) {
	db, err := postgres.Open(context.Background(), pgtest.URL(b), postgres.Options{Migrate: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	benchUIPage(b, db, "/ui/r/acme/ui")
}

// BenchmarkUIRepoPage1000Stale1 and BenchmarkUIRepoPage1000Stale20
// render the same page with one stale-reference report of each live entry
// (what the server kept before it kept them per commit) and with the 20
// a store keeps at most (four reporters, five commits each): the page
// reads every report kept and ranks each entry's.
func BenchmarkUIRepoPage1000Stale1(b *testing.B) {
	benchUIPage(b, nil, "/ui/r/acme/ui", seedStaleReports(1))
}

func BenchmarkUIRepoPage1000Stale20(b *testing.B) {
	benchUIPage(b, nil, "/ui/r/acme/ui", seedStaleReports(server.StaleReportsKept))
}

// seedStaleReports saves n reports of each live entry of acme/ui, one
// entry in ten naming a stale reference.
func seedStaleReports(n int) func(*testing.B, *testServer) {
	return func(b *testing.B, ts *testServer) {
		snap, err := ts.Store.Snapshot(context.Background(), "acme/ui", server.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now().Add(-24 * time.Hour)
		for i := range n {
			reports := make([]server.StaleReport, 0, len(snap.Live))
			for j, e := range snap.Live {
				r := server.StaleReport{Repo: "acme/ui", Key: e.Key, Version: e.Version, Commit: fmt.Sprintf("%040x", i),
					CommittedAt: t0.Add(time.Duration(i) * time.Minute), Branch: "main", Reporter: fmt.Sprintf("r%d", i%4),
					At: t0.Add(time.Duration(i) * time.Minute), Findings: []server.StaleFinding{}}
				if j%10 == 0 {
					r.Findings = []server.StaleFinding{{Reference: "scripts/release.sh", Line: 1, Reason: server.StaleMissing}}
				}
				reports = append(reports, r)
			}
			if err := ts.Store.SaveStaleReports(context.Background(), "acme/ui", reports); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkUIEntryPage renders one entry page with its history.
func BenchmarkUIEntryPage(b *testing.B) {
	benchUIPage(b, nil, "/ui/r/acme/ui/~entry?"+url.Values{"key": {"topic-00/note-0000.md"}}.Encode())
}

func benchUIPage(b *testing.B, store server.Store, path string, seeds ...func(*testing.B, *testServer)) {
	ts := benchServer(b, store, seeds...)
	login := httptest.NewRequest(http.MethodPost, "/ui/login", strings.NewReader(url.Values{"token": {ts.Admin}}.Encode()))
	login.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	ts.Handler.ServeHTTP(rec, login)
	cookie := rec.Result().Cookies()[0]
	var size int
	cpu0 := cpuTime()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.AddCookie(cookie)
		rec := httptest.NewRecorder()
		ts.Handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "page-bytes")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// cpuTime is the process's user and system CPU time so far: per page it
// is what rendering costs even when other processes share the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchServer starts a server on store (the embedded one when nil) with
// acme/ui seeded (seedUIRepo), then seeds.
func benchServer(b *testing.B, store server.Store, seeds ...func(*testing.B, *testServer)) *testServer {
	t := &testing.T{}
	ts := newTestServer(t, servertest.Options{Limits: server.Limits{MaxEntries: 2000, MaxBodyBytes: 8 << 20}, Store: store})
	ts.t = t
	seedUIRepo(b, ts)
	for _, seed := range seeds {
		seed(b, ts)
	}
	return ts
}
