package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
)

// benchStaleReports measures stale-reference reports on a repository of
// n entries whose every entry holds server.StaleReportsKept reports (four
// reporters, one commit each report): "save" is one agent's report of
// every entry at a new commit (each upserted, the entry's oldest dropped),
// "read" every report kept of the repository, as the repository's page
// reads them.
func benchStaleReports(b *testing.B, s server.Store, n int, op string) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	report := func(i int) []server.StaleReport {
		out := make([]server.StaleReport, n)
		for j := range out {
			out[j] = server.StaleReport{Repo: repo, Key: benchKey(j), Version: 1, Commit: fmt.Sprintf("%040x", i),
				CommittedAt: t0.Add(time.Duration(i) * time.Minute), Branch: "main", Reporter: fmt.Sprintf("r%d", i%4),
				At: t0.Add(time.Duration(i) * time.Minute), Findings: []server.StaleFinding{}}
			if j%10 == 0 {
				out[j].Findings = []server.StaleFinding{{Reference: "scripts/release.sh", Line: 1, Reason: server.StaleMissing}}
			}
		}
		return out
	}
	for i := range server.StaleReportsKept {
		if err := s.SaveStaleReports(ctx, repo, report(i)); err != nil {
			b.Fatal(err)
		}
	}
	defer measureCPU(b)()
	i := server.StaleReportsKept
	for b.Loop() {
		var err error
		if op == "save" {
			err = s.SaveStaleReports(ctx, repo, report(i))
			i++
		} else {
			_, err = s.StaleReports(ctx, repo, server.StaleQuery{})
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
