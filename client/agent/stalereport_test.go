package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/testkit/gittest"
)

// reportingRemote is the fake server that also takes stale-reference
// reports, answering err when set.
type reportingRemote struct {
	*fakeRemote
	reports []api.StaleReportRequest
	err     error
}

func (f *reportingRemote) ReportStale(ctx context.Context, repo string, req api.StaleReportRequest) (*api.StaleReportResponse, error) {
	f.reports = append(f.reports, req)
	if f.err != nil {
		return nil, f.err
	}
	return &api.StaleReportResponse{Repo: repo}, nil
}

// TestEngineReportsStaleReferences: the check's findings go to the server
// for the topics in step with it, at the commit checked, once per change;
// a server without the endpoint stops the reports, said once.
func TestEngineReportsStaleReferences(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	deploys, style := "Deploys go through `scripts/release.sh`.\n", "See `./README.md`.\n"
	var remote *reportingRemote
	r := newRig(t, map[string]string{"MEMORY.md": "- [Deploys](deploys.md) — runbook\n", "deploys.md": deploys, "style.md": style}, nil,
		func(c *Config) {
			remote = &reportingRemote{fakeRemote: c.Remote.(*fakeRemote)}
			c.Remote, c.Block = remote, BlockConfig{Checkouts: StaticCheckouts(main)}
		})
	r.sync(t)
	if len(remote.reports) != 1 {
		t.Fatalf("%d reports after the first sync; want 1", len(remote.reports))
	}
	got := remote.reports[0]
	head := strings.TrimSpace(gittest.Run(t, main, "rev-parse", "HEAD"))
	committed, err := time.Parse(time.RFC3339, strings.TrimSpace(gittest.Run(t, main, "log", "-1", "--format=%cI")))
	if err != nil {
		t.Fatal(err)
	}
	d, s := got.Entries["deploys.md"], got.Entries["style.md"]
	if got.Commit != head || got.CommittedAt != committed.UTC().Format(time.RFC3339) || got.Branch != "main" || len(got.Entries) != 2 || d.Checksum != protocol.EntryChecksum([]byte(deploys)) ||
		len(d.Findings) != 1 || d.Findings[0] != (api.StaleFinding{Reference: "scripts/release.sh", Line: 1, Reason: api.StaleMissing}) ||
		s.Checksum != protocol.EntryChecksum([]byte(style)) || len(s.Findings) != 0 {
		t.Fatalf("report = %+v", got)
	}
	r.sync(t)
	if len(remote.reports) != 1 {
		t.Errorf("a sync that found the same sent a report again")
	}

	// A local edit not pushed yet (a pull only) is not reported: the
	// server holds other content under that key.
	writeTree(t, r.dir, map[string]string{"style.md": "See `./gone.md`.\n"})
	if _, err := r.engine.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(remote.reports); n != 1 {
		if _, ok := remote.reports[n-1].Entries["style.md"]; ok {
			t.Errorf("a topic out of step with the server was reported: %+v", remote.reports[n-1])
		}
	}
	r.sync(t) // pushed: now in step, and its finding is new
	last := remote.reports[len(remote.reports)-1]
	if f := last.Entries["style.md"].Findings; len(f) != 1 || f[0].Reference != "./gone.md" {
		t.Errorf("after the push the report of style.md = %+v", last.Entries["style.md"])
	}

	// A server without the endpoint: said once, then never asked again.
	remote.err = client.ErrNotFound
	writeTree(t, r.dir, map[string]string{"deploys.md": "Deploys go through `scripts/ship.sh`.\n"})
	rep := r.sync(t)
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "not reported") {
		t.Errorf("warnings = %q; want one saying reports stop", rep.Warnings)
	}
	n := len(remote.reports)
	writeTree(t, r.dir, map[string]string{"deploys.md": "Deploys go through `scripts/other.sh`.\n"})
	r.sync(t)
	if len(remote.reports) != n {
		t.Errorf("reports were sent after the server said it takes none")
	}
}
