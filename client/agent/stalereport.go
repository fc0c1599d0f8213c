package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// StaleReporter takes the stale-reference reports of a repo (see
// client.Client.ReportStale); a Remote that is one gets the engine's
// findings, so the web UI can show them.
type StaleReporter interface {
	ReportStale(ctx context.Context, repo string, req api.StaleReportRequest) (*api.StaleReportResponse, error)
}

var _ StaleReporter = (*client.Client)(nil)

// staleReport sends the stale references its check found to the server:
// a subscriber of the engine's cycles, after the block writer (whose
// render runs the check).
type staleReport struct {
	refs     *staleRefs
	reporter StaleReporter
	repo     string
	journal  *Journal
	// save writes the journal (Engine.saveJournal).
	save func() error
	// noReport says the server cannot take reports (older, or no write
	// grant).
	noReport bool
}

// cycleDone sends the last stale-reference check's findings to the server
// after a cycle that succeeded: for each topic checked whose content is the
// server's live content (the others would be refused, and speak of content
// nobody else has), at the commit checked. Only a report that differs from
// the last one the server took is sent (its fingerprint is kept in the
// journal), so a cycle that changed nothing sends nothing, in this process
// or the next. A server older than the report, or a token without a write
// grant, stops the reports for the engine's life (said once); another
// failure is said and retried at the next cycle.
func (sr *staleReport) cycleDone(ctx context.Context, c *cycleEnd, r *Report) {
	s := sr.refs
	if c.err != nil || sr.noReport || !s.unsent || s.head == "" || c.live == nil {
		return // nothing checked since the last report: an idle cycle costs nothing here
	}
	req := s.request(c.live)
	if len(req.Entries) == 0 {
		s.unsent = false
		return
	}
	body, err := json.Marshal(req) // map keys sorted: the same report, the same bytes
	if err != nil {
		return
	}
	sum := sha256.Sum256(body)
	fp := hex.EncodeToString(sum[:])
	if fp == sr.journal.StaleReported {
		s.unsent = false
		return
	}
	_, err = sr.reporter.ReportStale(ctx, sr.repo, req)
	switch {
	case errors.Is(err, client.ErrNotFound) || errors.Is(err, client.ErrForbidden):
		sr.noReport, s.unsent = true, false
		r.Warnings = append(r.Warnings, fmt.Sprintf("stale references are not reported to the server (%v): the web UI will not show them", err))
	case err != nil:
		r.Warnings = append(r.Warnings, fmt.Sprintf("report stale references: %v", err))
	default:
		s.unsent = false
		sr.journal.StaleReported, sr.journal.changed = fp, true
		if err := sr.save(); err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("report stale references: %v", err))
		}
	}
}

// request is the report of the last check: the commit checked, its
// committer time and branch (what the server orders reports of different
// commits by), and each topic checked whose checksum is the server's live
// one in live, with its findings.
func (s *staleRefs) request(live map[string]string) api.StaleReportRequest {
	req := api.StaleReportRequest{Commit: s.head, Branch: s.branch, Entries: map[string]api.StaleReportEntry{}}
	if !s.headTime.IsZero() {
		req.CommittedAt = s.headTime.UTC().Format(time.RFC3339)
	}
	for key, sum := range s.checked {
		if live[key] != sum {
			continue
		}
		findings := make([]api.StaleFinding, 0, len(s.findings[key]))
		for _, f := range s.findings[key] {
			findings = append(findings, api.StaleFinding{Reference: f.Ref.Text, Line: f.Ref.Line, Reason: f.Reason,
				Since: f.Since, RenamedTo: f.RenamedTo})
		}
		req.Entries[key] = api.StaleReportEntry{Checksum: sum, Findings: findings}
	}
	return req
}
