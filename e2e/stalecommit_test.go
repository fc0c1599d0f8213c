//go:build unix

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/gittest"
)

// TestStaleVerdictTwoCheckouts: two teammates' real agents on two real
// checkouts of the repository, one behind. The one ahead reports the
// release script gone at its newer commit; the one behind reports after
// it that every reference held at its older commit. The server keeps the
// newer commit's verdict, says at which commit it holds and that the
// older checkout found otherwise, and so does the web UI; a newer commit
// that brings the script back turns it to held.
func TestStaleVerdictTwoCheckouts(t *testing.T) {
	a := startAuthServer(t)
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	dated(t, t0)
	ahead, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	write(t, ahead, "scripts/release.sh", "#!/bin/sh\n")
	gittest.Run(t, ahead, "add", "scripts")
	commitAt(t, ahead, t0.Add(10*time.Minute), "release script")
	behind := filepath.Join(t.TempDir(), "api-behind")
	gittest.Run(t, filepath.Dir(ahead), "clone", "-q", ahead, behind)
	gittest.Run(t, ahead, "rm", "-q", "scripts/release.sh")
	commitAt(t, ahead, t0.Add(20*time.Minute), "drop the release script")
	aheadHead := strings.TrimSpace(gittest.Run(t, ahead, "rev-parse", "HEAD"))
	behindHead := strings.TrimSpace(gittest.Run(t, behind, "rev-parse", "HEAD"))

	type teammate struct{ dir, state, tokenFile, checkout string }
	join := func(subject, checkout string) teammate {
		m := teammate{dir: t.TempDir(), state: t.TempDir(), tokenFile: filepath.Join(t.TempDir(), "token"), checkout: checkout}
		if err := os.WriteFile(m.tokenFile, []byte(a.token(t, subject, repo+":write")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return m
	}
	ana, bo := join("ana", ahead), join("bo", behind)
	sync := func(m teammate) {
		t.Helper()
		if code, p := runAgent(t, a.serverProc, m.dir, m.state, "sync", "--token-file", m.tokenFile, "--repo-dir", m.checkout); code != 0 {
			t.Fatalf("sync exit %d:\n%s\n%s", code, p.stdout, p.stderr)
		}
	}
	verdict := func() api.StaleEntryReport {
		t.Helper()
		got, err := a.api.StaleReports(context.Background(), repo, "deploys.md")
		if err != nil || len(got.Reports) != 1 {
			t.Fatalf("the reports of deploys.md: %+v, %v", got, err)
		}
		return got.Reports[0]
	}
	write(t, ana.dir, "deploys.md", "---\nname: deploys\n---\nDeploys go through `scripts/release.sh`.\n")
	write(t, ana.dir, "MEMORY.md", "- [Deploys](deploys.md) — deploy runbook\n")
	sync(ana) // pushes the topic, reports the script missing at the newer commit
	sync(bo)  // pulls it, reports every reference held at the older commit, last
	posts := strings.Count(a.stderr.String(), "method=POST route=/api/v1/stale-references")
	if posts != 2 {
		t.Fatalf("%d reports sent; want one from each agent", posts)
	}

	v := verdict()
	if v.Commit != aheadHead || v.Reporter != "ana" || len(v.Findings) != 1 || v.Findings[0].Reference != "scripts/release.sh" ||
		v.Branch != "main" || v.CommittedAt != t0.Add(20*time.Minute).UTC().Format(time.RFC3339) {
		t.Fatalf("after the checkout behind reported, the verdict = %+v; want ana's at %s", v, aheadHead)
	}
	if len(v.Others) != 1 || v.Others[0].Commit != behindHead || v.Others[0].Reporter != "bo" || v.Others[0].Stale != 0 ||
		v.Others[0].Standing != api.StandingOlder {
		t.Errorf("the others = %+v; want bo's, held at the older commit", v.Others)
	}
	ui := uiSession(t, a, a.token(t, "rui", repo+":read"))
	entry := ui.get(t, "/ui/r/"+repo+"/~entry?key=deploys.md")
	for _, want := range []string{"Checked by ana against commit <code>" + aheadHead[:12] + "</code> on <code>main</code>",
		"1 stale reference at this commit", "bo, at commit <code>" + behindHead[:12] + "</code>", "(an older checkout;"} {
		if !strings.Contains(entry, want) {
			t.Errorf("the entry page lacks %q:\n%s", want, entry)
		}
	}
	if strings.Contains(entry, "Every code reference held.") {
		t.Errorf("the entry page took the older checkout's word:\n%s", entry)
	}

	// The script comes back in a newer commit: held.
	write(t, ahead, "scripts/release.sh", "#!/bin/sh\nexec ship\n")
	gittest.Run(t, ahead, "add", "scripts")
	commitAt(t, ahead, t0.Add(30*time.Minute), "bring the release script back")
	sync(ana)
	if v = verdict(); v.Reporter != "ana" || len(v.Findings) != 0 || v.Commit == aheadHead {
		t.Errorf("after the script came back, the verdict = %+v; want held at the newest commit", v)
	}
	if entry := ui.get(t, "/ui/r/"+repo+"/~entry?key=deploys.md"); !strings.Contains(entry, "Every code reference held.") {
		t.Errorf("after the script came back the entry page says:\n%s", entry)
	}
}

// dated makes the commits git makes from now on in this test dated at.
func dated(t *testing.T, at time.Time) {
	t.Setenv("GIT_COMMITTER_DATE", at.Format(time.RFC3339))
	t.Setenv("GIT_AUTHOR_DATE", at.Format(time.RFC3339))
}

// commitAt commits what is staged in dir, dated at.
func commitAt(t *testing.T, dir string, at time.Time, message string) {
	t.Helper()
	dated(t, at)
	gittest.Run(t, dir, "commit", "-q", "-m", message)
}
