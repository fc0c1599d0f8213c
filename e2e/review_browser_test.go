//go:build unix

package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// TestReviewInBrowser: an admin opens the review queue in a real browser
// (the header counts the proposals), opens a proposal (its author's
// provenance and diff), approves it with a comment through the page's
// form, and the server serves the approved text. The queue and the
// proposal page are saved as screenshots.
func TestReviewInBrowser(t *testing.T) {
	a := startAuthServer(t)
	ctx := context.Background()
	if _, err := a.api.Put(ctx, repo, api.PutRequest{Entries: map[string]string{
		"db.md":     "# Database\n\nWe use MySQL 8 for the server.\n\nPools of 10 connections.\n",
		"deploy.md": "# Deploys\n\nDeploy on Tuesdays.\n",
		"MEMORY.md": "- [Database](db.md) — which database\n- [Deploys](deploy.md) — when we deploy\n",
	}}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := a.api.SetPolicy(ctx, repo, "changes"); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct{ who, key, text string }{
		{"ana", "db.md", "# Database\n\nWe use Postgres 16 for the server.\n\nPools of 10 connections.\n"},
		{"ben", "deploy.md", "# Deploys\n\nDeploy any weekday but Friday.\n"},
	} {
		c, err := client.New(client.Options{BaseURL: a.url(), Token: a.token(t, w.who, repo+":write"), UserAgent: "teammem-agent/1.4.0"})
		if err != nil {
			t.Fatal(err)
		}
		if res, err := c.Put(ctx, repo, api.PutRequest{Entries: map[string]string{w.key: w.text}}, ""); err != nil || res.Proposal == nil {
			t.Fatalf("%s's push: %+v, %v", w.who, res, err)
		}
	}
	b := &tab{t: t, ctx: newBrowser(t), base: a.url()}
	b.signIn(a.admin)
	if got := b.open("/ui/proposals"); got != 200 || !strings.Contains(b.text(), "#1") || !strings.Contains(b.text(), "#2") {
		t.Fatalf("the queue: %d %q", got, b.text())
	}
	if got := b.eval(`document.querySelector(".reviews .count").textContent`); got != "2" {
		t.Errorf("the header counts %q", got)
	}
	b.screenshot("review-queue")
	b.open("/ui/proposals/1")
	for _, want := range []string{"Proposed by ana", "teammem-agent/1.4.0", "Postgres 16", "MySQL 8"} {
		if !strings.Contains(b.text(), want) {
			t.Errorf("the proposal page lacks %q: %q", want, b.text())
		}
	}
	b.screenshot("review-proposal")
	b.do(chromedp.SendKeys(chromedp.CSS("#comment"), "Yes: we moved in March."))
	if got := b.click(`button[value="approve"]`); got != 200 || !strings.Contains(b.text(), "approved by admin") {
		t.Fatalf("after approve: %d %q", got, b.text())
	}
	if got := a.entries(repo)["db.md"]; !strings.Contains(got, "Postgres 16") {
		t.Errorf("served after approval: %q", got)
	}
}
