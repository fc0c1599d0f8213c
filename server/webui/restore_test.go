package webui_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestUIRestoreRefusedByTheScanner: a revision stored before the
// credential scan refused its content (the scan was off, or the rule is
// newer) cannot be restored: the page says so, naming the rule and never
// the credential, the refusal is logged, and nothing changes.
func TestUIRestoreRefusedByTheScanner(t *testing.T) {
	before := newTestServer(t, servertest.Options{NoSecretScan: true})
	secret := "https://hooks.slack.com/services/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"
	before.Put("acme/api", map[string]string{"hooks.md": "post to " + secret + "\n"}, nil, http.StatusOK)
	before.Put("acme/api", map[string]string{"hooks.md": "post to the webhook in the vault\n"}, nil, http.StatusOK)

	var logs bytes.Buffer
	ts := &testServer{Server: before.Replica(t, servertest.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))}), t: t}
	b := ts.browser(t)
	b.signIn(ts.Token("ana", "acme/*:write"))
	entry := b.get("/ui/r/acme/api/~entry?key=hooks.md").must(t, http.StatusOK)
	form := url.Values{"csrf": {entry.csrf(t)}, "key": {"hooks.md"}, "version": {"1"}, "base": {entry.formValue(t, "~restore", "base")}}
	p := b.post("/ui/r/acme/api/~restore", form)
	p.must(t, http.StatusUnprocessableEntity)
	for _, want := range []string{"Not restored", "Version 1 of hooks.md", "slack-webhook-url", "Nothing changed"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the refusal page lacks %q:\n%s", want, p.Body)
		}
	}
	if strings.Contains(p.Body, "Restored") || strings.Contains(p.Body, "q8Zr3LxV0bNw5TyK2mJd9HsF") {
		t.Errorf("the refusal page claims a restore or shows the credential:\n%s", p.Body)
	}
	if p.Header.Get("Set-Cookie") != "" && strings.Contains(p.Header.Get("Set-Cookie"), "teammem_flash=") {
		t.Errorf("a refused restore sets a notice: %s", p.Header.Get("Set-Cookie"))
	}
	hist := servertest.Decode[api.History](t, ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=hooks.md", ts.Admin, nil))
	if len(hist.Revisions) != 2 || hist.Revisions[0].Version != 2 {
		t.Errorf("a refused restore changed the history: %+v", hist.Revisions)
	}
	log := logs.String()
	for _, want := range []string{`"msg":"restore refused"`, `"subject":"ana"`, `"key":"hooks.md"`, `"version":1`, `"rule_id":"slack-webhook-url"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, "q8Zr3LxV0bNw5TyK2mJd9HsF") {
		t.Errorf("the credential reached the log:\n%s", log)
	}
	if after := b.get("/ui/r/acme/api/~entry?key=hooks.md").must(t, http.StatusOK); strings.Contains(after.Body, `class="notice"`) {
		t.Errorf("the entry page after a refused restore shows a notice:\n%s", after.Body)
	}
}

// TestUIRestoreNotice: the notice after a restore comes from the server's
// own record of it, shown once, to the session that made it; a URL cannot
// make a page claim a restore.
func TestUIRestoreNotice(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"notes.md": "first\n"}, nil, http.StatusOK)
	ts.Put("acme/api", map[string]string{"notes.md": "second\n"}, nil, http.StatusOK)
	b, other := ts.browser(t), ts.browser(t)
	b.signIn(ts.Admin)
	other.signIn(ts.Admin)

	forged := b.get("/ui/r/acme/api/~entry?key=notes.md&restored=99").must(t, http.StatusOK)
	if strings.Contains(forged.Body, `class="notice"`) || strings.Contains(forged.Body, "99") {
		t.Errorf("a restored= parameter makes the page claim a restore:\n%s", forged.Body)
	}
	restore := func(version string) page {
		t.Helper()
		e := b.get("/ui/r/acme/api/~entry?key=notes.md").must(t, http.StatusOK)
		return b.post("/ui/r/acme/api/~restore", url.Values{"csrf": {e.csrf(t)}, "key": {"notes.md"}, "version": {version},
			"base": {e.formValue(t, "~restore", "base")}}).must(t, http.StatusSeeOther)
	}
	loc := restore("1").Header.Get("Location")
	if strings.Contains(loc, "restored") {
		t.Errorf("the restore's redirect carries its outcome in the URL: %s", loc)
	}
	if p := other.get(loc).must(t, http.StatusOK); strings.Contains(p.Body, `class="notice"`) {
		t.Errorf("another session sees the notice")
	}
	if p := b.get("/ui/r/acme/api/~entry?key=other.md"); strings.Contains(p.Body, "Restored") {
		t.Errorf("another entry's page shows the notice")
	}
	p := b.get(loc).must(t, http.StatusOK)
	if !strings.Contains(p.Body, "Restored: the content of version 1 is back as version 3.") {
		t.Errorf("the entry page does not confirm the restore:\n%s", p.Body)
	}
	if p := b.get(loc).must(t, http.StatusOK); strings.Contains(p.Body, `class="notice"`) {
		t.Errorf("the notice shows twice")
	}
	// Restoring the content the entry holds changes nothing, and says so.
	restore("3")
	if p := b.get(loc).must(t, http.StatusOK); !strings.Contains(p.Body, "Nothing to restore: the entry already holds the content of version 3.") {
		t.Errorf("a restore that changed nothing is not said so:\n%s", p.Body)
	}
}
