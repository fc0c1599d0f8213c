package webui_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestUIStaleReferences: the entry and repository pages show the latest
// stale-reference report, worded by the UI, the teammate's reference text
// escaped; a report of an older version says the entry changed since.
func TestUIStaleReferences(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	deploy := "Deploys go through `scripts/release.sh`.\n"
	ts.Put("acme/api", map[string]string{"deploy.md": deploy, "ok.md": "fine\n"}, nil, http.StatusOK)
	g, err := server.ParseGrant("acme/api:write")
	if err != nil {
		t.Fatal(err)
	}
	ana := server.Principal{Subject: "ana", Grants: []server.Grant{g}}
	hostile := "<script>alert(1)</script>`x`"
	_, err = ts.Service.ReportStale(context.Background(), ana, "acme/api", server.StaleReportInput{
		Commit: "0123456789abcdef0123456789abcdef01234567",
		Entries: map[string]server.StaleEntryInput{
			"deploy.md": {Checksum: protocol.EntryChecksum([]byte(deploy)), Findings: []server.StaleFinding{
				{Reference: "scripts/release.sh", Line: 1, Reason: server.StaleMissing, Since: "89abcdef0123", RenamedTo: "scripts/ship.sh"},
				{Reference: hostile, Line: 2, Reason: server.StaleNoSymbol}}},
			"ok.md": {Checksum: protocol.EntryChecksum([]byte("fine\n")), Findings: []server.StaleFinding{}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	b := ts.browser(t)
	b.signIn(ts.Token("rui", "acme/api:read"))
	entry := b.get("/ui/r/acme/api/~entry?key=deploy.md").must(t, http.StatusOK)
	for _, want := range []string{"Code references", "Checked by ana against commit <code>0123456789ab</code>", "2 stale references",
		"<code>scripts/release.sh</code>", "removed by commit 89abcdef0123, which moved it to scripts/ship.sh",
		"&lt;script&gt;alert(1)&lt;/script&gt;", "the file does not hold the symbol"} {
		if !strings.Contains(entry.Body, want) {
			t.Errorf("the entry page lacks %q:\n%s", want, entry.Body)
		}
	}
	if strings.Contains(entry.Body, "<script>") || strings.Contains(entry.Body, "changed since") {
		t.Errorf("the entry page shows markup of the report, or calls a current report old:\n%s", entry.Body)
	}
	if ok := b.get("/ui/r/acme/api/~entry?key=ok.md").must(t, http.StatusOK); !strings.Contains(ok.Body, "Every code reference held.") {
		t.Errorf("a clean report is not shown:\n%s", ok.Body)
	}
	repo := b.get("/ui/r/acme/api").must(t, http.StatusOK)
	_, card, _ := strings.Cut(repo.Body, "Stale code references")
	card, _, _ = strings.Cut(card, "</section>")
	if !strings.Contains(card, "key=deploy.md") || !strings.Contains(card, "<code>scripts/release.sh</code>") ||
		strings.Contains(card, "ok.md") || strings.Contains(repo.Body, "<script>") {
		t.Errorf("the repository page's stale references:\n%s", card)
	}

	// The entry changes: the report stays, for its version.
	ts.Put("acme/api", map[string]string{"deploy.md": "Deploys go through `scripts/ship.sh`.\n"}, nil, http.StatusOK)
	if p := b.get("/ui/r/acme/api/~entry?key=deploy.md").must(t, http.StatusOK); !strings.Contains(p.Body, "at version 1: the entry changed since") {
		t.Errorf("an old report is not said to be old:\n%s", p.Body)
	}
	// Deleted: no report.
	ts.Put("acme/api", nil, []string{"deploy.md"}, http.StatusOK)
	if p := b.get("/ui/r/acme/api").must(t, http.StatusOK); strings.Contains(p.Body, "Stale code references") {
		t.Errorf("a deleted entry's report shows on the repository page")
	}
	// No grant: no page at all.
	eve := ts.browser(t)
	eve.signIn(ts.Token("eve", "other/*:read"))
	eve.get("/ui/r/acme/api/~entry?key=ok.md").must(t, http.StatusForbidden)
}

// TestUIStaleVerdict: the entry page shows the verdict at the newest
// commit, with its branch and time, though a teammate on an older
// checkout reported after it, and says that checkout found otherwise;
// the repository page counts those.
func TestUIStaleVerdict(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	deploy := "Deploys go through `scripts/release.sh`.\n"
	ts.Put("acme/api", map[string]string{"deploy.md": deploy}, nil, http.StatusOK)
	g, err := server.ParseGrant("acme/api:write")
	if err != nil {
		t.Fatal(err)
	}
	report := func(who, commit string, at time.Time, branch string, f []server.StaleFinding) {
		t.Helper()
		_, err := ts.Service.ReportStale(context.Background(), server.Principal{Subject: who, Grants: []server.Grant{g}}, "acme/api",
			server.StaleReportInput{Commit: commit, CommittedAt: at, Branch: branch, Entries: map[string]server.StaleEntryInput{
				"deploy.md": {Checksum: protocol.EntryChecksum([]byte(deploy)), Findings: f}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	report("ana", strings.Repeat("b", 40), now.Add(-time.Hour), "main", []server.StaleFinding{{Reference: "scripts/release.sh", Line: 1, Reason: server.StaleMissing}})
	report("bo", strings.Repeat("a", 40), now.Add(-72*time.Hour), "main", []server.StaleFinding{})
	b := ts.browser(t)
	b.signIn(ts.Token("rui", "acme/api:read"))
	entry := b.get("/ui/r/acme/api/~entry?key=deploy.md").must(t, http.StatusOK)
	for _, want := range []string{"Checked by ana against commit <code>bbbbbbbbbbbb</code> on <code>main</code> (committed <time",
		"1 stale reference at this commit", "Checkouts at other commits reported otherwise",
		"bo, at commit <code>aaaaaaaaaaaa</code> on <code>main</code> (committed", "every code reference held", "(an older checkout; reported"} {
		if !strings.Contains(entry.Body, want) {
			t.Errorf("the entry page lacks %q:\n%s", want, entry.Body)
		}
	}
	if strings.Contains(entry.Body, "Every code reference held.") {
		t.Errorf("the entry page takes the older checkout's word:\n%s", entry.Body)
	}
	repo := b.get("/ui/r/acme/api").must(t, http.StatusOK)
	if !strings.Contains(repo.Body, "1 other checkout reported otherwise") {
		t.Errorf("the repository page does not count the other checkout:\n%s", repo.Body)
	}
}
