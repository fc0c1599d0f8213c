package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestReportStale sends a report larger than one request, with a finding
// at every bound on each entry, to the real server: every entry is
// recorded and read back, with the commit's time and branch in every
// request; a reader cannot report.
func TestReportStale(t *testing.T) {
	ctx := context.Background()
	ts := servertest.Start(t, servertest.Options{})
	entries, req := map[string]string{}, api.StaleReportRequest{Commit: strings.Repeat("ab", 20), CommittedAt: "2026-01-02T03:04:05Z",
		Branch: strings.Repeat("b", 255), Entries: map[string]api.StaleReportEntry{}}
	long := strings.Repeat("d/", 99) + "x"
	for i := range 250 {
		k, content := fmt.Sprintf("t%03d.md", i), fmt.Sprintf("topic %d\n", i)
		entries[k] = content
		findings := make([]api.StaleFinding, 64)
		for j := range findings {
			findings[j] = api.StaleFinding{Reference: long, Line: j + 1, Reason: api.StaleMissing, Since: strings.Repeat("c", 64), RenamedTo: long}
		}
		req.Entries[k] = api.StaleReportEntry{Checksum: protocol.EntryChecksum([]byte(content)), Findings: findings}
	}
	ts.Put("acme/api", entries, nil, 200)
	c, err := client.New(client.Options{BaseURL: ts.URL, Token: ts.Token("ana", "acme/api:write")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.ReportStale(ctx, "acme/api", req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Recorded) != 250 || len(res.Skipped) != 0 {
		t.Fatalf("recorded %d, skipped %v; want all 250", len(res.Recorded), res.Skipped)
	}
	got, err := c.StaleReports(ctx, "acme/api", "t042.md")
	if err != nil || len(got.Reports) != 1 || len(got.Reports[0].Findings) != 64 || got.Reports[0].Findings[63].Line != 64 {
		t.Fatalf("the report of t042.md: %+v, %v", got, err)
	}
	if got, err = c.StaleReports(ctx, "acme/api", "t249.md"); err != nil || len(got.Reports) != 1 ||
		got.Reports[0].CommittedAt != req.CommittedAt || got.Reports[0].Branch != req.Branch {
		t.Fatalf("the last request's report lacks the commit's time or branch: %+v, %v", got, err)
	}
	reader, err := client.New(client.Options{BaseURL: ts.URL, Token: ts.Token("rui", "acme/api:read")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reader.ReportStale(ctx, "acme/api", req); !errors.Is(err, client.ErrForbidden) {
		t.Errorf("a reader's report: %v; want ErrForbidden", err)
	}
}
