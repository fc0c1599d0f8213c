//go:build unix

package e2e

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/server"
)

// seedWebUI writes acme/web (an index linking its topics, two versions of
// one topic, a deleted entry), acme/xss (an entry of script payloads) and
// acme/secret, through the real client.
func seedWebUI(t *testing.T, a *authServer) {
	t.Helper()
	ctx := context.Background()
	bob, err := client.New(client.Options{BaseURL: a.url(), Token: a.token(t, "bob", "acme/web:write")})
	if err != nil {
		t.Fatal(err)
	}
	put := func(c *client.Client, repo string, req api.PutRequest) {
		t.Helper()
		if _, err := c.Put(ctx, repo, req, ""); err != nil {
			t.Fatalf("put %s: %v", repo, err)
		}
	}
	put(a.api, "acme/web", api.PutRequest{Entries: map[string]string{
		"MEMORY.md": "# Team memory\n\n- [Database choice](decisions/database.md) — why Postgres\n" +
			"- [Code style](style/go.md) — how we write Go\n- [Release checklist](release.md)\n",
		"decisions/database.md": "# Database\n\nWe use **Postgres 15** for the server.\n\n| store | use |\n|---|---|\n| sqlite | single node |\n| postgres | replicas |\n",
		"style/go.md":           "# Go style\n\n- errors wrap with `%w`\n- one package per technology\n",
		"release.md":            "# Release\n\n1. tag\n2. `make dist`\n",
		"old-notes.md":          "# Old notes\n\nThe staging host is staging-2.\n",
	}})
	put(bob, "acme/web", api.PutRequest{Entries: map[string]string{
		"decisions/database.md": "# Database\n\nWe use **Postgres 16** for the server, SQLite embedded.\n\n| store | use |\n|---|---|\n| sqlite | single node |\n| postgres | replicas |\n",
	}})
	put(bob, "acme/web", api.PutRequest{SoftDeleteKeys: []string{"old-notes.md"}})
	put(a.api, "acme/xss", api.PutRequest{Entries: map[string]string{
		"payloads.md": "# Payloads\n\n<script>window.__pwned=1;alert(1)</script>\n\n[click me](javascript:window.__pwned=2) " +
			"<img src=x onerror=\"window.__pwned=3\">\n\n<svg onload=\"window.__pwned=4\"><script>alert(4)</script></svg>\n\n" +
			"![svg](data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIG9ubG9hZD0iYWxlcnQoNSkiLz4=)\n\n" +
			"<iframe src=\"javascript:alert(6)\"></iframe> <details open ontoggle=\"window.__pwned=7\">x</details>\n",
	}})
	put(a.api, "acme/secret", api.PutRequest{Entries: map[string]string{"MEMORY.md": "# Secret plan\n"}})
}

// TestWebUIInBrowser drives the web UI in headless Chromium against the
// real server: sign in, browse, history and a diff, restore a deleted entry
// and see it through the API, script payloads inert, a token without a
// grant seeing nothing of other repositories. It saves screenshots.
func TestWebUIInBrowser(t *testing.T) {
	ctx := newBrowser(t)
	a := startAuthServer(t)
	seedWebUI(t, a)
	b := &tab{t: t, ctx: ctx, base: a.url()}
	dialogs := b.dialogs()

	b.signIn(a.token(t, "ana", "acme/web:write", "acme/xss:read"))
	home := b.text()
	if !strings.Contains(home, "acme/web") || strings.Contains(home, "acme/secret") {
		t.Fatalf("ana's repository list:\n%s", home)
	}
	b.screenshot("repos")

	if st := b.click(`a[href="/ui/r/acme/web"]`); st != 200 {
		t.Fatalf("repository page: %d", st)
	}
	repo := b.text()
	for _, want := range []string{"Team memory", "Database choice", "decisions/", "database.md", "Activity", "Deleted entries", "old-notes.md"} {
		if !strings.Contains(repo, want) {
			t.Errorf("repository page lacks %q:\n%s", want, repo)
		}
	}
	b.screenshot("repo")

	// MEMORY.md's link leads to the topic.
	b.click(`.memory a[href*="decisions%2Fdatabase.md"]`)
	if entry := b.text(); !strings.Contains(entry, "We use Postgres 16") || !strings.Contains(entry, "History") {
		t.Fatalf("entry page:\n%s", entry)
	}
	if h := b.eval(`document.querySelector(".md table") ? "table" : "none"`); h != "table" {
		t.Errorf("the GFM table is not rendered")
	}
	b.screenshot("entry")

	// Compare the two versions with the history's form.
	b.click(`form[action$="/~diff"] button[type=submit]`)
	if !strings.HasPrefix(b.location(), "/ui/r/acme/web/~diff?") {
		t.Fatalf("compare went to %s", b.location())
	}
	if got := b.eval(`[...document.querySelectorAll("tr.opdel .code")].map(e => e.textContent).join("|") + " => " +
		[...document.querySelectorAll("tr.opadd .code")].map(e => e.textContent).join("|")`); got != "We use **Postgres 15** for the server. => We use **Postgres 16** for the server, SQLite embedded." {
		t.Errorf("diff rows: %s", got)
	}
	b.screenshot("diff")

	// Restore the deleted entry from the repository page: its link leads
	// to a page that shows what comes back and asks to confirm.
	b.open("/ui/r/acme/web")
	b.click(`.deleted a.action`)
	if page := b.text(); !strings.Contains(page, "Restore version 1?") || !strings.Contains(page, "The staging host is staging-2.") {
		t.Fatalf("the restore's confirmation at %s:\n%s", b.location(), page)
	}
	if _, gone := a.entries("acme/web")["old-notes.md"]; gone {
		t.Fatalf("the confirmation page restored the entry before it was confirmed")
	}
	b.screenshot("restore-confirm")
	b.click(`form.confirm button[type=submit]`)
	if !strings.Contains(b.text(), "Restored") || !strings.Contains(b.location(), "key=old-notes.md") {
		t.Fatalf("after restore the tab shows %s:\n%s", b.location(), b.text())
	}
	m, err := a.api.Get(context.Background(), "acme/web", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Content.Entries["old-notes.md"]; got != "# Old notes\n\nThe staging host is staging-2.\n" {
		t.Fatalf("the API serves the restored entry as %q", got)
	}
	if _, gone := m.Content.DeletedEntries["old-notes.md"]; gone {
		t.Errorf("the restored entry is still a tombstone")
	}

	// The header's search box on the home page searches every repository
	// ana can read, through the search index: words anywhere in an entry.
	b.open("/ui/")
	if st := b.submit(`header form.search input[name=q]`, "postgres SQLITE"); st != 200 {
		t.Fatalf("search across repositories: %d", st)
	}
	if loc := b.location(); !strings.HasPrefix(loc, "/ui/search?q=") {
		t.Fatalf("the home page's search went to %s", loc)
	}
	found := b.text()
	if !strings.Contains(found, "decisions/database.md") || !strings.Contains(found, "acme/web") || strings.Contains(found, "Secret plan") {
		t.Errorf("search across repositories:\n%s", found)
	}
	if got := b.eval(`[...new Set([...document.querySelectorAll(".hits mark")].map(e => e.textContent.toLowerCase()))].sort().join(",")`); got != "postgres,sqlite" {
		t.Errorf("marked words: %q; want postgres,sqlite", got)
	}
	b.screenshot("search")

	// Script payloads stay inert: no dialog, no assignment ran.
	b.open("/ui/r/acme/xss")
	b.open("/ui/r/acme/xss/~search?q=pwned")
	b.open("/ui/search?q=alert")
	b.open("/ui/r/acme/xss/~entry?key=payloads.md")
	if got := b.eval(`String(window.__pwned)`); got != "undefined" {
		t.Errorf("an entry's script ran: window.__pwned = %s", got)
	}
	if n := dialogs.Load(); n != 0 {
		t.Errorf("entry content opened %d dialogs", n)
	}
	if got := b.eval(`String(document.querySelectorAll("main script, main svg, main iframe, main [onerror], main [onload], main [ontoggle]").length)`); got != "0" {
		t.Errorf("%s script-capable elements in the rendered entry", got)
	}

	// Dark mode and a phone-sized window.
	b.darkMode(true)
	b.open("/ui/r/acme/web")
	if bg := b.eval(`getComputedStyle(document.body).backgroundColor`); bg != "rgb(20, 20, 23)" {
		t.Errorf("dark mode background = %s", bg)
	}
	b.screenshot("repo-dark")
	b.do(chromedp.EmulateViewport(390, 844))
	b.open("/ui/r/acme/web/~entry?key=" + url.QueryEscape("decisions/database.md"))
	if w := b.eval(`String(document.documentElement.scrollWidth <= window.innerWidth + 1)`); w != "true" {
		t.Errorf("the entry page scrolls sideways on a phone")
	}
	// Every cell of the history, the compare radios and the restore link
	// included, is on the screen: the rows reflow rather than run off it.
	if cut := b.eval(`[...document.querySelectorAll("table.history td")].filter(td => {
			const r = td.getBoundingClientRect(); return r.width > 0 && (r.left < 0 || r.right > window.innerWidth)
		}).map(td => td.textContent.trim() || td.innerHTML.trim().slice(0, 40)).join(" | ")`); cut != "" {
		t.Errorf("history cells off a phone's screen: %s", cut)
	}
	if n := b.eval(`String(document.querySelectorAll("table.history a.action").length)`); n != "1" {
		t.Errorf("%s restore links in the history on a phone; want 1 (version 1)", n)
	}
	b.screenshot("entry-phone-dark")
	b.darkMode(false)
	b.screenshot("entry-phone")
	b.click(`table.history a.action`)
	if page := b.text(); !strings.Contains(page, "Restore version 1?") {
		t.Errorf("the history's restore link on a phone leads to:\n%s", page)
	}
	b.screenshot("restore-confirm-phone")
}

// TestWebUIWithoutGrant signs in with a token for another repository and
// finds no trace of acme/web or acme/secret.
func TestWebUIWithoutGrant(t *testing.T) {
	ctx := newBrowser(t)
	a := startAuthServer(t)
	seedWebUI(t, a)
	b := &tab{t: t, ctx: ctx, base: a.url()}
	b.signIn(a.token(t, "eve", "other/thing:read"))
	if home := b.text(); strings.Contains(home, "acme") || !strings.Contains(home, "No repository") {
		t.Fatalf("eve's repository list:\n%s", home)
	}
	if st := b.open("/ui/r/acme/secret"); st != 403 {
		t.Errorf("acme/secret answers %d, want 403", st)
	}
	secret := b.text()
	if st := b.open("/ui/r/acme/never-was"); st != 403 {
		t.Errorf("acme/never-was answers %d, want 403", st)
	}
	if never := b.text(); never != secret {
		t.Errorf("the refusal of an existing repository differs from that of an absent one:\n%s\n----\n%s", secret, never)
	}
	if strings.Contains(secret, "Secret plan") {
		t.Errorf("the refusal shows content")
	}
	b.screenshot("forbidden")
}

// TestWebUIPersonalMemory: signed in, a user finds their personal memory
// apart from the team repositories and reads it; a second subject holding
// **:admin finds no trace of it, and its address answers the refusal of a
// personal repository that does not exist.
func TestWebUIPersonalMemory(t *testing.T) {
	ctx := newBrowser(t)
	a := startAuthServer(t)
	seedWebUI(t, a)
	ana := a.token(t, "ana", "acme/web:read")
	c, err := client.New(client.Options{BaseURL: a.url(), Token: ana})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(context.Background(), "~/acme/web", api.PutRequest{Entries: map[string]string{
		"MEMORY.md": "- [My build](build.md) — how I build it\n", "build.md": "# My build\n\nmake -j8 on the laptop\n"}}, ""); err != nil {
		t.Fatal(err)
	}
	mine := server.PersonalRepo("ana", "acme/web")

	b := &tab{t: t, ctx: ctx, base: a.url()}
	b.signIn(ana)
	home := b.text()
	team, personal, ok := strings.Cut(home, "Your personal memory")
	if !ok || !strings.Contains(team, "acme/web") || !strings.Contains(personal, "~/acme/web") {
		t.Fatalf("ana's home page:\n%s", home)
	}
	b.screenshot("personal-home")
	if st := b.click(`a[href="/ui/r/` + mine + `"]`); st != 200 {
		t.Fatalf("personal memory page: %d", st)
	}
	if page := b.text(); !strings.Contains(page, "My build") || !strings.Contains(page, "~/acme/web") {
		t.Errorf("ana's personal memory page:\n%s", page)
	}

	root := &tab{t: t, ctx: newBrowser(t), base: a.url()}
	root.signIn(a.token(t, "root", "**:admin"))
	if home := root.text(); strings.Contains(home, "personal") || strings.Contains(home, "~/") {
		t.Errorf("the admin's home page:\n%s", home)
	}
	if st := root.open("/ui/r/" + mine); st != 403 {
		t.Errorf("ana's personal memory answers the admin %d, want 403", st)
	}
	refused := root.text()
	if st := root.open("/ui/r/" + server.PersonalRepo("ana", "acme/never")); st != 403 {
		t.Errorf("an absent personal repository answers %d, want 403", st)
	}
	if absent := strings.ReplaceAll(root.text(), "acme/never", "acme/web"); absent != refused {
		t.Errorf("the refusal of ana's personal memory differs from that of an absent one:\n%s\n----\n%s", refused, absent)
	}
	if strings.Contains(refused, "make -j8") || strings.Contains(refused, "My build") {
		t.Errorf("the refusal shows content")
	}
}
