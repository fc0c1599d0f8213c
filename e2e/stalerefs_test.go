//go:build unix

package e2e

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/testkit/gittest"
)

// TestStaleReferencesReachTheWebUI: the real agent checks its topics'
// code references against the checkout's HEAD, reports what it found to
// the real server (once per change), and the web UI's entry and
// repository pages show it to a teammate.
func TestStaleReferencesReachTheWebUI(t *testing.T) {
	a := startAuthServer(t)
	checkout, _ := gittest.NewCheckout(t, "git@github.com:"+repo+".git")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(a.token(t, "ana", repo+":write")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir, state := t.TempDir(), t.TempDir()
	write(t, dir, "deploys.md", "---\nname: deploys\n---\nDeploys go through `scripts/release.sh`; the notes are in `README.md`.\n")
	write(t, dir, "MEMORY.md", "- [Deploys](deploys.md) — deploy runbook\n")
	sync := func() {
		t.Helper()
		if code, p := runAgent(t, a.serverProc, dir, state, "sync", "--token-file", tokenFile, "--repo-dir", checkout); code != 0 {
			t.Fatalf("sync exit %d:\n%s\n%s", code, p.stdout, p.stderr)
		}
	}
	posts := func() int { return strings.Count(a.stderr.String(), "method=POST route=/api/v1/stale-references") }
	sync()
	head := strings.TrimSpace(gittest.Run(t, checkout, "rev-parse", "HEAD"))

	got, err := a.api.StaleReports(context.Background(), repo, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Reports) != 1 || got.Reports[0].Key != "deploys.md" || got.Reports[0].Commit != head || got.Reports[0].Reporter != "ana" ||
		!got.Reports[0].Current || len(got.Reports[0].Findings) != 1 || got.Reports[0].Findings[0].Reference != "scripts/release.sh" {
		t.Fatalf("reports after the first sync: %+v", got.Reports)
	}
	if n := posts(); n != 1 {
		t.Errorf("%d reports sent by the first sync; want 1", n)
	}

	// A teammate with a read grant sees it in the web UI.
	ui := uiSession(t, a, a.token(t, "rui", repo+":read"))
	entry := ui.get(t, "/ui/r/"+repo+"/~entry?key=deploys.md")
	for _, want := range []string{"Checked by ana against commit <code>" + head[:12] + "</code>", "1 stale reference",
		"<code>scripts/release.sh</code>", "the path is not in the commit"} {
		if !strings.Contains(entry, want) {
			t.Errorf("the entry page lacks %q:\n%s", want, entry)
		}
	}
	if page := ui.get(t, "/ui/r/"+repo); !strings.Contains(page, "Stale code references") || !strings.Contains(page, "scripts/release.sh") {
		t.Errorf("the repository page does not show the stale reference:\n%s", page)
	}

	// Nothing changed: nothing is sent.
	sync()
	if n := posts(); n != 1 {
		t.Errorf("a sync that changed nothing sent a report (%d in all)", n)
	}

	// The code catches up: the next check finds nothing stale, and says so.
	write(t, checkout, "scripts/release.sh", "#!/bin/sh\n")
	gittest.Run(t, checkout, "add", "scripts")
	gittest.Run(t, checkout, "commit", "-q", "-m", "release script")
	sync()
	if n := posts(); n != 2 {
		t.Errorf("%d reports in all after the commit; want 2", n)
	}
	if entry := ui.get(t, "/ui/r/"+repo+"/~entry?key=deploys.md"); !strings.Contains(entry, "Every code reference held.") {
		t.Errorf("after the commit the entry page says:\n%s", entry)
	}
}

// uiClient is a signed-in browser of the web UI, without a browser.
type uiClient struct {
	base string
	c    *http.Client
}

// uiSession signs in to a's web UI with token.
func uiSession(t *testing.T, a *authServer, token string) *uiClient {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	u := &uiClient{base: a.url(), c: &http.Client{Jar: jar}}
	req, err := http.NewRequest(http.MethodPost, u.base+"/ui/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := u.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/ui/" {
		t.Fatalf("sign in: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	return u
}

// get returns the page at path, failing unless it answers 200.
func (u *uiClient) get(t *testing.T, path string) string {
	t.Helper()
	resp, err := u.c.Get(u.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v:\n%s", path, resp.StatusCode, err, body)
	}
	return string(body)
}
