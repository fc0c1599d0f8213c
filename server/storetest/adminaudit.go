package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/teammem/teammem/server"
)

// testReviewAudit: a policy change, a rejection, a withdrawal and an
// approval each append one record to the repository's chain naming who
// acted and through what; the approval's write is one write record naming
// its author and its approver, followed by the approval; a refused
// approval (merge conflict) records nothing.
func testReviewAudit(t *testing.T, s server.Store) {
	log, ok := s.(server.AuditLog)
	if !ok {
		t.Skip("the store keeps no audit log")
	}
	r := newReviewRig(t, s)
	r.put(r.admin, contents{"a.md": "a\n", "b.md": "b\n"})
	if _, err := r.svc.SetReviewPolicy(context.Background(), r.admin, "acme/api", server.ReviewChanges,
		server.Provenance{Surface: server.SurfaceWeb, Client: "Firefox/140"}); err != nil {
		t.Fatal(err)
	}
	rejected := r.put(r.bob, contents{"a.md": "bob\n"}).Proposal
	if _, err := r.decide(r.admin, rejected.ID, server.DecideReject, "no"); err != nil {
		t.Fatal(err)
	}
	withdrawn := r.put(r.eve, contents{"b.md": "eve\n"}).Proposal
	if _, err := r.decide(r.eve, withdrawn.ID, server.DecideWithdraw, ""); err != nil {
		t.Fatal(err)
	}
	clash := r.put(r.bob, contents{"b.md": "bob\n"}).Proposal
	r.put(r.admin, contents{"b.md": "ada\n"})
	if _, err := r.decide(r.admin, clash.ID, server.DecideApprove, ""); err == nil {
		t.Fatal("approving over a clashing edit succeeded")
	}
	approved := r.put(r.eve, contents{"a.md": "eve\n"}).Proposal
	got, err := r.decide(r.admin, approved.ID, server.DecideApprove, "")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	err = log.AuditEntries(context.Background(), server.AuditQuery{Chain: "acme/api"}, func(e server.AuditEntry) error {
		var rec server.AuditRecord
		if err := json.Unmarshal(e.Body, &rec); err != nil {
			return err
		}
		by := rec.By
		line := fmt.Sprintf("%s by %s/%s/%s", rec.Action, by.Subject, by.Surface, by.Credential)
		if by.ApprovedBy != "" {
			line += fmt.Sprintf(" approved by %s #%d", by.ApprovedBy, by.Proposal)
		}
		if rec.Action != server.AuditWrite {
			line += fmt.Sprintf(" v%d %v", rec.Version, rec.Detail)
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"write by ada/agent/token:ada",
		"review.policy by ada/web/token:ada v0 map[review:changes]",
		fmt.Sprintf("review.reject by ada/rest/token:ada v0 map[author:bob keys:a.md proposal:%d]", rejected.ID),
		fmt.Sprintf("review.withdraw by eve/rest/token:eve v0 map[author:eve keys:b.md proposal:%d]", withdrawn.ID),
		"write by ada/agent/token:ada",
		fmt.Sprintf("write by eve/agent/token:eve approved by ada #%d", approved.ID),
		fmt.Sprintf("review.approve by ada/rest/token:ada v%d map[author:eve keys:a.md proposal:%d]", got.AppliedVersion, approved.ID),
	}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("acme/api's audit chain:\n got %q\nwant %q", lines, want)
	}
	verifyClean(t, log)
}

// testUpkeepAudit: setting a repository's upkeep appends a record to its
// chain naming who set what; refused settings record nothing.
func testUpkeepAudit(t *testing.T, s server.Store) {
	log, ok := s.(server.AuditLog)
	us, ok2 := s.(server.UpkeepStore)
	if !ok || !ok2 {
		t.Skip("the store keeps no audit log or no upkeep settings")
	}
	ctx := server.WithAuditActor(context.Background(), server.AuditActor{Subject: "operator:root@host", Surface: "cli"})
	if err := us.SetUpkeepSettings(ctx, "acme/api", server.UpkeepSettings{UnusedDays: -1}); err == nil {
		t.Fatal("negative unused days were set")
	}
	if err := us.SetUpkeepSettings(ctx, "acme/api", server.UpkeepSettings{UnusedDays: 30, DailyTidy: true}); err != nil {
		t.Fatal(err)
	}
	var lines []string
	err := log.AuditEntries(context.Background(), server.AuditQuery{Chain: "acme/api"}, func(e server.AuditEntry) error {
		var rec server.AuditRecord
		if err := json.Unmarshal(e.Body, &rec); err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%d %s by %s/%s %v", e.Seq, rec.Action, rec.By.Subject, rec.By.Surface, rec.Detail))
		return nil
	})
	if want := "[1 upkeep.set by operator:root@host/cli map[dailyTidy:true unusedDays:30]]"; err != nil || fmt.Sprint(lines) != want {
		t.Errorf("acme/api's audit chain = %q, %v; want %s", lines, err, want)
	}
}
