package webui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
)

// seedProposals makes 1,000 open proposals in acme/ui, each of one entry
// (about 1 kB) by one of 50 authors, through Service.Propose.
func seedProposals(b *testing.B, ts *testServer) {
	b.Helper()
	grant, _ := server.ParseGrant("acme/*:write")
	for i := range 1000 {
		p := server.Principal{Subject: fmt.Sprintf("dev%02d", i%50), Grants: []server.Grant{grant}, Credential: "token:bench"}
		text := fmt.Sprintf("# Note %d, proposed\n\nA proposed change of the note.\n", i)
		key := fmt.Sprintf("topic-%02d/note-%04d.md", i%20, i)
		if _, err := ts.Service.Propose(context.Background(), p, "acme/ui", server.ChangeSet{Changes: map[string]*string{key: &text}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReviewQueue1000 renders the review queue (its first 100 of
// 1,000 open proposals, and the header's count) through the real handler.
func BenchmarkReviewQueue1000(b *testing.B) {
	benchUIPage(b, nil, "/ui/proposals?repo=acme/ui", seedProposals)
}

// BenchmarkReviewProposalPage1000 renders one proposal's page (its diff
// against the current text) among 1,000.
func BenchmarkReviewProposalPage1000(b *testing.B) {
	benchUIPage(b, nil, "/ui/proposals/500", seedProposals)
}

// BenchmarkReviewQueue1000Postgres and BenchmarkReviewProposalPage1000Postgres
// are the same pages on the Postgres store.
func BenchmarkReviewQueue1000Postgres(b *testing.B) {
	benchUIPage(b, openBenchPostgres(b), "/ui/proposals?repo=acme/ui", seedProposals)
}

func BenchmarkReviewProposalPage1000Postgres(b *testing.B) {
	benchUIPage(b, openBenchPostgres(b), "/ui/proposals/500", seedProposals)
}

func openBenchPostgres(b *testing.B) server.Store {
	db, err := postgres.Open(context.Background(), pgtest.URL(b), postgres.Options{Migrate: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkReviewQueueAPI1000 is GET /api/v1/proposals?repo=acme/ui (100
// of 1,000) through the real handler.
func BenchmarkReviewQueueAPI1000(b *testing.B) {
	benchProposalsAPI(b, nil)
}

func BenchmarkReviewQueueAPI1000Postgres(b *testing.B) {
	benchProposalsAPI(b, openBenchPostgres(b))
}

func benchProposalsAPI(b *testing.B, store server.Store) {
	ts := benchServer(b, store, seedProposals)
	var size int
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, api.PathProposals+"?repo=acme/ui", nil)
		req.Header.Set("Authorization", "Bearer "+ts.Admin)
		rec := httptest.NewRecorder()
		ts.Handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "body-bytes")
}
