package webui_test

import (
	"bytes"
	"log/slog"
	"net/http"
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
	p := b.post("/ui/r/acme/api/~restore", b.restoreForm(t, entry, "hooks.md", "1"))
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
	if strings.Contains(forged.Body, `class="notice"`) || strings.Contains(forged.Body, "version 99") || strings.Contains(forged.Body, "Restored") {
		t.Errorf("a restored= parameter makes the page claim a restore:\n%s", forged.Body)
	}
	restore := func(version string) page {
		t.Helper()
		e := b.get("/ui/r/acme/api/~entry?key=notes.md").must(t, http.StatusOK)
		return b.post("/ui/r/acme/api/~restore", b.restoreForm(t, e, "notes.md", version)).must(t, http.StatusSeeOther)
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
	// Restoring the content the entry holds changes nothing, and says so:
	// the confirmation page offers no form, and a form posted all the same
	// writes nothing.
	if p := b.get("/ui/r/acme/api/~restore?key=notes.md&version=3").must(t, http.StatusOK); !strings.Contains(p.Body, "nothing to restore") ||
		strings.Contains(p.Body, `/~restore"`) {
		t.Errorf("the confirmation of a restore of the live content:\n%s", p.Body)
	}
	e := b.get("/ui/r/acme/api/~entry?key=notes.md").must(t, http.StatusOK)
	form := b.restoreForm(t, e, "notes.md", "2")
	form.Set("version", "3")
	b.post("/ui/r/acme/api/~restore", form).must(t, http.StatusSeeOther)
	if p := b.get(loc).must(t, http.StatusOK); !strings.Contains(p.Body, "Nothing to restore: the entry already holds the content of version 3.") {
		t.Errorf("a restore that changed nothing is not said so:\n%s", p.Body)
	}
}

// TestUIRestoreAsksFirst: the entry page and the repository page offer a
// restore as a link, never as a form that writes; the page it leads to
// shows what would change and writes nothing until its own form is
// posted.
func TestUIRestoreAsksFirst(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"notes.md": "first\nkept\n", "gone.md": "gone for now\n"}, nil, http.StatusOK)
	ts.Put("acme/api", map[string]string{"notes.md": "second\nkept\n"}, nil, http.StatusOK)
	ts.Put("acme/api", nil, []string{"gone.md"}, http.StatusOK)
	b := ts.browser(t)
	b.signIn(ts.Token("ana", "acme/*:write"))

	entry := b.get("/ui/r/acme/api/~entry?key=notes.md").must(t, http.StatusOK)
	repo := b.get("/ui/r/acme/api").must(t, http.StatusOK)
	for name, p := range map[string]page{"entry": entry, "repository": repo} {
		if strings.Contains(p.Body, `/~restore"`) || strings.Contains(p.Body, "<button class=\"small\"") {
			t.Errorf("the %s page holds a restore form:\n%s", name, p.Body)
		}
	}
	if !strings.Contains(entry.Body, `<a class="action" href="/ui/r/acme/api/~restore?key=notes.md&amp;version=1">Restore…</a>`) {
		t.Errorf("the entry page does not link version 1's restore:\n%s", entry.Body)
	}

	confirm := b.get("/ui/r/acme/api/~restore?key=notes.md&version=1").must(t, http.StatusOK)
	for _, want := range []string{"Restore version 1?", "replaces the current content", `<td class="code">second</td>`,
		`<td class="code">first</td>`, `<td class="code">kept</td>`, `<button type="submit">Restore version 1</button>`, ">Cancel</a>"} {
		if !strings.Contains(confirm.Body, want) {
			t.Errorf("the confirmation page lacks %q:\n%s", want, confirm.Body)
		}
	}
	deleted := b.get("/ui/r/acme/api/~restore?key=gone.md&version=3").must(t, http.StatusOK)
	if !strings.Contains(deleted.Body, "Restore version 1?") || !strings.Contains(deleted.Body, "brings the deleted entry back") {
		t.Errorf("the confirmation of a deleted entry's restore:\n%s", deleted.Body)
	}
	if h := servertest.Decode[api.History](t, ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=notes.md", ts.Admin, nil)); len(h.Revisions) != 2 {
		t.Errorf("showing the confirmation wrote: %+v", h.Revisions)
	}
	b.get("/ui/r/acme/api/~restore?key=never.md&version=1").must(t, http.StatusNotFound)
	b.get("/ui/r/acme/api/~restore?key=notes.md&version=x").must(t, http.StatusBadRequest)
}

// TestUIShowsRestores: a restore reads as one in the entry's history and
// in the activity feed, naming the version it brought back.
func TestUIShowsRestores(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"notes.md": "first\n"}, nil, http.StatusOK)
	ts.Put("acme/api", map[string]string{"notes.md": "second\n"}, nil, http.StatusOK)
	ts.Put("acme/api", map[string]string{"notes.md": "first\n"}, nil, http.StatusOK)
	b := ts.browser(t)
	b.signIn(ts.Admin)
	restoreOf1 := `restore of <a href="/ui/r/acme/api/~entry?key=notes.md&amp;v=1">v1</a>`
	entry := b.get("/ui/r/acme/api/~entry?key=notes.md").must(t, http.StatusOK)
	if strings.Count(entry.Body, "<td>"+restoreOf1) != 1 || strings.Count(entry.Body, "<td>edit") != 2 {
		t.Errorf("the entry's history does not show version 3 as the restore of v1:\n%s", entry.Body)
	}
	if p := b.get("/ui/r/acme/api").must(t, http.StatusOK); !strings.Contains(p.Body, ">1 entry ·") {
		t.Errorf("the repository page does not count its one entry in the singular:\n%s", p.Body)
	}
	for _, path := range []string{"/ui/r/acme/api", "/ui/r/acme/api/~activity"} {
		if p := b.get(path).must(t, http.StatusOK); strings.Count(p.Body, "(restore of ") != 1 || !strings.Contains(p.Body, restoreOf1) {
			t.Errorf("%s does not show version 3 as the restore of v1:\n%s", path, p.Body)
		}
	}
}
