package webui_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/servertest"
)

func TestUISignIn(t *testing.T) {
	var logs bytes.Buffer
	ts := newTestServer(t, servertest.Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	b := ts.browser(t)

	p := b.get("/ui/").must(t, http.StatusSeeOther)
	if loc := p.Header.Get("Location"); loc != "/ui/login" {
		t.Fatalf("signed-out /ui/ redirects to %q, want /ui/login", loc)
	}
	form := b.get("/ui/login").must(t, http.StatusOK)
	if !strings.Contains(form.Body, `name="token"`) || !strings.Contains(form.Body, `method="post"`) {
		t.Fatalf("sign-in page has no POST form with a token field:\n%s", form.Body)
	}
	for _, want := range []string{"Ask your teammem admin", "teammem-server token create", "admin.token"} {
		if !strings.Contains(form.Body, want) {
			t.Errorf("the sign-in page does not say where a token comes from (%q):\n%s", want, form.Body)
		}
	}

	expired := ts.ExpiredToken("old", "**:read")
	bad := b.post("/ui/login", url.Values{"token": {expired}}).must(t, http.StatusUnauthorized)
	if !strings.Contains(bad.Body, "not accepted") || strings.Contains(bad.Body, expired) {
		t.Fatalf("refused sign-in page must say so without echoing the token:\n%s", bad.Body)
	}
	forged := ts.Admin[:len(ts.Admin)-4] + "AAAA"
	b.post("/ui/login", url.Values{"token": {forged}}).must(t, http.StatusUnauthorized)
	b.post("/ui/login", url.Values{"token": {""}}).must(t, http.StatusBadRequest)

	p = b.post("/ui/login", url.Values{"token": {ts.Admin}}).must(t, http.StatusSeeOther)
	cookie := p.Header.Get("Set-Cookie")
	for _, want := range []string{"teammem_session=", "HttpOnly", "SameSite=Strict", "Path=/ui/"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("session cookie %q lacks %s", cookie, want)
		}
	}
	if strings.Contains(cookie, "Secure") {
		t.Errorf("session cookie over plain HTTP is Secure: %q", cookie)
	}
	if strings.Contains(cookie, ts.Admin) || strings.Contains(cookie, strings.Split(ts.Admin, ".")[1]) {
		t.Errorf("the session cookie holds the token in the clear")
	}
	home := b.get("/ui/").must(t, http.StatusOK)
	if !strings.Contains(home.Body, "admin") {
		t.Errorf("home page does not name the signed-in subject")
	}

	tls := ts.browser(t).post("/ui/login", url.Values{"token": {ts.Admin}}, "X-Forwarded-Proto", "https")
	if c := tls.Header.Get("Set-Cookie"); !strings.Contains(c, "Secure") {
		t.Errorf("session cookie behind TLS is not Secure: %q", c)
	}

	// A cross-site form cannot sign anyone in or out.
	b.post("/ui/login", url.Values{"token": {ts.Admin}}, "Sec-Fetch-Site", "cross-site").must(t, http.StatusForbidden)
	b.post("/ui/logout", url.Values{"csrf": {home.csrf(t)}}, "Sec-Fetch-Site", "cross-site").must(t, http.StatusForbidden)
	b.post("/ui/logout", url.Values{"csrf": {"forged"}}).must(t, http.StatusBadRequest)
	b.get("/ui/").must(t, http.StatusOK)
	b.post("/ui/logout", url.Values{"csrf": {home.csrf(t)}}).must(t, http.StatusSeeOther)
	b.get("/ui/").must(t, http.StatusSeeOther)

	if strings.Contains(logs.String(), ts.Admin) || strings.Contains(logs.String(), expired) {
		t.Errorf("a token reached the log:\n%s", logs.String())
	}
}

func TestUIForgedOrTamperedCookie(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	b := ts.browser(t)
	b.signIn(ts.Admin)
	u, _ := url.Parse(ts.URL + "/ui/")
	c := b.client.Jar.Cookies(u)[0]
	raw := []byte(c.Value)
	raw[len(raw)/2] ^= 1
	c.Value, c.Path = string(raw), "/ui/"
	b.client.Jar.SetCookies(u, []*http.Cookie{c})
	b.get("/ui/").must(t, http.StatusSeeOther)
	// A session from another server (another secret) is not accepted.
	other := newTestServer(t, servertest.Options{})
	ob := other.browser(t)
	ob.signIn(other.Admin)
	ou, _ := url.Parse(other.URL + "/ui/")
	oc := ob.client.Jar.Cookies(ou)[0]
	oc.Path = "/ui/"
	b.client.Jar.SetCookies(u, []*http.Cookie{oc})
	b.get("/ui/").must(t, http.StatusSeeOther)
}

func TestUISecurityHeaders(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"MEMORY.md": "# hi\n"}, nil, http.StatusOK)
	b := ts.browser(t)
	check := func(path string, p page) {
		t.Helper()
		h := p.Header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %s", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "script-src") {
			t.Errorf("%s: CSP %q allows script", path, csp)
		}
		if h.Get("X-Frame-Options") != "DENY" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: X-Frame-Options %q, X-Content-Type-Options %q", path, h.Get("X-Frame-Options"), h.Get("X-Content-Type-Options"))
		}
		if strings.Contains(p.Body, "<script") || strings.Contains(p.Body, "http://") || strings.Contains(p.Body, "https://") {
			t.Errorf("%s: page loads script or a third-party asset:\n%s", path, p.Body)
		}
	}
	check("/ui/login", b.get("/ui/login"))
	b.signIn(ts.Admin)
	for _, path := range []string{"/ui/", "/ui/r/acme/api", "/ui/r/acme/api/~entry?key=MEMORY.md", "/ui/r/acme/api/~search?q=hi",
		"/ui/r/acme/api/~diff?key=MEMORY.md&from=1&to=1", "/ui/r/acme/nope", "/ui/nowhere"} {
		check(path, b.get(path))
	}
	css := b.get("/ui/static/style.css").must(t, http.StatusOK)
	if !strings.HasPrefix(css.Header.Get("Content-Type"), "text/css") || !strings.Contains(css.Body, "prefers-color-scheme: dark") {
		t.Errorf("stylesheet: %s, dark mode missing", css.Header.Get("Content-Type"))
	}
}

// xssPayloads are entries that would run script if rendered naively.
var xssPayloads = map[string]string{
	"script.md":      "# hi\n<script>alert(1)</script>\n",
	"jslink.md":      "[click](javascript:alert(1)) [upper](JAVASCRIPT:alert(1)) [spaced](java%0ascript:alert(1))\n",
	"jsref.md":       "[click][x]\n\n[x]: javascript:alert(1)\n",
	"autolink.md":    "<javascript:alert(1)>\n",
	"img.md":         "<img src=x onerror=alert(1)>\n\n![x](x \"t\" onerror=alert(1))\n",
	"svg.md":         "<svg onload=alert(1)><script>alert(2)</script></svg>\n\n![s](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)\n",
	"iframe.md":      "<iframe src=\"javascript:alert(1)\"></iframe><object data=x></object><embed src=x>\n",
	"style.md":       "<style>body{display:none}</style><div style=\"background:url(javascript:alert(1))\">x</div>\n",
	"inline.md":      "Text <a href=\"javascript:alert(1)\" onclick=\"alert(1)\">a</a> <b onmouseover=alert(1)>b</b>\n",
	"vbscript.md":    "[v](vbscript:msgbox(1)) [d](data:text/html,<script>alert(1)</script>)\n",
	"form.md":        "<form action=\"https://evil.example\"><input name=token></form><meta http-equiv=refresh content=\"0;url=javascript:alert(1)\">\n",
	"mathml.md":      "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>\n",
	"entities.md":    "[e](&#106;avascript:alert(1)) [e2](jav&#x09;ascript:alert(1))\n",
	"code-fence.md":  "```html\n<script>alert(1)</script>\n```\n",
	"table-cell.md":  "| a |\n|---|\n| <img src=x onerror=alert(1)> |\n",
	"task-list.md":   "- [x] <script>alert(1)</script>\n",
	"html-block.md":  "<div>\n<img src=x onerror=alert(1)>\n</div>\n",
	"link-title.md":  "[t](https://example.com \"\\\" onmouseover=\\\"alert(1)\")\n",
	"svg-use.md":     "<svg><use href=\"data:image/svg+xml,<svg id='x' xmlns='http://www.w3.org/2000/svg'><image href='1' onerror='alert(1)' /></svg>#x\"></use></svg>\n",
	"base.md":        "<base href=\"javascript:alert(1)//\">\n",
	"details.md":     "<details open ontoggle=alert(1)>x</details>\n",
	"raw-in-list.md": "- <img src=x onerror=alert(1)>\n",
}

// scriptVectors walks a page and lists everything that could run script or
// load something: script-like elements, event handler attributes, and
// URLs that are not plain relative, http(s) or mailto.
func scriptVectors(t *testing.T, body string) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "iframe", "object", "embed", "svg", "math", "style", "base", "frame", "frameset", "template":
				found = append(found, "<"+n.Data+">")
			}
			for _, a := range n.Attr {
				key, val := strings.ToLower(a.Key), strings.ToLower(strings.TrimSpace(a.Val))
				switch {
				case strings.HasPrefix(key, "on"), key == "style", key == "formaction", key == "srcdoc", key == "http-equiv":
					found = append(found, n.Data+" "+a.Key+"="+a.Val)
				case key == "href" || key == "src" || key == "action" || key == "data" || key == "xlink:href":
					if u, err := url.Parse(val); err != nil || (u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "mailto") {
						found = append(found, n.Data+" "+a.Key+"="+a.Val)
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return found
}

func TestUIEntryContentCannotRunScript(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	entries := map[string]string{"MEMORY.md": ""}
	for k, v := range xssPayloads {
		entries["xss/"+k] = v
		entries["MEMORY.md"] += v
	}
	ts.Put("acme/xss", entries, nil, http.StatusOK)
	b := ts.browser(t)
	b.signIn(ts.Admin)
	pages := []string{"/ui/", "/ui/r/acme/xss", "/ui/r/acme/xss/~search?q=alert"}
	for k := range entries {
		q := url.Values{"key": {k}}.Encode()
		pages = append(pages, "/ui/r/acme/xss/~entry?"+q, "/ui/r/acme/xss/~diff?"+q+"&from=1&to=1")
	}
	for _, path := range pages {
		p := b.get(path).must(t, http.StatusOK)
		if v := scriptVectors(t, p.Body); len(v) > 0 {
			t.Errorf("%s carries script vectors %q", path, v)
		}
	}
	// The raw text is shown, escaped: the payload is visible, not live.
	p := b.get("/ui/r/acme/xss/~entry?key=xss%2Fscript.md")
	if !strings.Contains(p.Body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the raw text of the script entry is not shown escaped")
	}
}

func TestUIForbiddenRevealsNothing(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"MEMORY.md": "# api\n", "a.md": "a"}, nil, http.StatusOK)
	ts.Put("acme/secret", map[string]string{"MEMORY.md": "# the secret plan\n", "a.md": "classified-words"}, nil, http.StatusOK)
	ts.Put("acme/secret", nil, []string{"a.md"}, http.StatusOK)
	b := ts.browser(t)
	b.signIn(ts.Token("ana", "acme/api:read"))
	home := b.get("/ui/").must(t, http.StatusOK)
	if !strings.Contains(home.Body, "acme/api") || strings.Contains(home.Body, "secret") {
		t.Fatalf("repository list shows what the grant does not cover:\n%s", home.Body)
	}
	for _, suffix := range []string{"", "/~entry?key=MEMORY.md", "/~entry?key=a.md&v=1", "/~diff?key=a.md&from=1&to=2",
		"/~search?q=plan", "/~search?q=", "/~activity", "/~activity?before=2"} {
		exists := b.get("/ui/r/acme/secret"+suffix).must(t, http.StatusForbidden)
		absent := b.get("/ui/r/acme/never-written"+suffix).must(t, http.StatusForbidden)
		norm := func(s string) string { return strings.ReplaceAll(s, "never-written", "secret") }
		if norm(absent.Body) != exists.Body {
			t.Errorf("%s: the 403 page of an existing repository differs from that of an absent one:\n%s\n----\n%s", suffix, exists.Body, absent.Body)
		}
		if strings.Contains(exists.Body, "plan") || strings.Contains(exists.Body, "classified") {
			t.Errorf("%s: the 403 page shows content", suffix)
		}
	}
	b.post("/ui/r/acme/secret/~restore", url.Values{"csrf": {home.csrf(t)}, "key": {"a.md"}, "version": {"2"}, "base": {"x"}}).
		must(t, http.StatusForbidden)
}

func TestUIRestore(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"MEMORY.md": "# api\n- [Notes](notes.md)\n", "notes.md": "first\n"}, nil, http.StatusOK)
	ts.Put("acme/api", map[string]string{"notes.md": "second\n"}, nil, http.StatusOK)
	ts.Put("acme/api", nil, []string{"notes.md"}, http.StatusOK)
	b := ts.browser(t)
	b.signIn(ts.Token("ana", "acme/*:write"))

	repoPage := b.get("/ui/r/acme/api").must(t, http.StatusOK)
	if !strings.Contains(repoPage.Body, "Deleted entries") || !strings.Contains(repoPage.Body, ">notes.md</a>") {
		t.Fatalf("the deleted entry is not listed:\n%s", repoPage.Body)
	}
	if !strings.Contains(repoPage.Body, `href="/ui/r/acme/api/~entry?key=notes.md"`) {
		t.Errorf("MEMORY.md's link does not lead to the topic's entry page")
	}
	confirmed := b.restoreForm(t, repoPage, "notes.md", "")
	csrf, base, version := confirmed.Get("csrf"), confirmed.Get("base"), confirmed.Get("version")
	if version != "2" {
		t.Errorf("the confirmation of a deleted entry's restore posts version %s; want 2, the content deleted", version)
	}
	form := func(csrf, base string) url.Values {
		return url.Values{"csrf": {csrf}, "key": {"notes.md"}, "version": {version}, "base": {base}}
	}

	b.post("/ui/r/acme/api/~restore", form("", base)).must(t, http.StatusBadRequest)
	b.post("/ui/r/acme/api/~restore", form(csrf, base), "Sec-Fetch-Site", "cross-site").must(t, http.StatusForbidden)
	reader := ts.browser(t)
	reader.signIn(ts.Token("rita", "acme/api:read"))
	rp := reader.get("/ui/r/acme/api").must(t, http.StatusOK)
	if strings.Contains(rp.Body, "~restore") {
		t.Errorf("a reader is offered a restore button")
	}
	reader.get("/ui/r/acme/api/~restore?key=notes.md&version=2").must(t, http.StatusForbidden)
	reader.post("/ui/r/acme/api/~restore", url.Values{"csrf": {rp.csrf(t)}, "key": {"notes.md"}, "version": {version}, "base": {base}}).
		must(t, http.StatusForbidden)
	if e := ts.Get("repo=acme/api", http.StatusOK); strings.Contains(string(e.Body), "second") {
		t.Fatalf("a refused restore wrote: %s", e.Body)
	}

	ts.Put("acme/api", map[string]string{"other.md": "meanwhile"}, nil, http.StatusOK)
	stale := b.post("/ui/r/acme/api/~restore", form(csrf, base)).must(t, http.StatusConflict)
	if !strings.Contains(stale.Body, "changed since") {
		t.Errorf("stale restore page: %s", stale.Body)
	}

	fresh := b.get("/ui/r/acme/api").must(t, http.StatusOK)
	done := b.post("/ui/r/acme/api/~restore", form(csrf, b.restoreForm(t, fresh, "notes.md", "").Get("base"))).must(t, http.StatusSeeOther)
	loc := done.Header.Get("Location")
	if !strings.HasPrefix(loc, "/ui/r/acme/api/~entry?key=notes.md") {
		t.Fatalf("restore redirects to %q", loc)
	}
	var pull api.TeamMemory
	if err := json.Unmarshal(ts.Get("repo=acme/api", http.StatusOK).Body, &pull); err != nil {
		t.Fatal(err)
	}
	if pull.Content.Entries["notes.md"] != "second\n" {
		t.Fatalf("after restore the API serves notes.md = %q, want the deleted content", pull.Content.Entries["notes.md"])
	}
	var hist api.History
	if err := json.Unmarshal(ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=notes.md", ts.Admin, nil).Body, &hist); err != nil {
		t.Fatal(err)
	}
	if len(hist.Revisions) != 4 || hist.Revisions[0].Op != "put" || hist.Revisions[0].Author != "ana" {
		t.Fatalf("the restore is not in the history as ana's edit: %+v", hist.Revisions)
	}
	entry := b.get(loc).must(t, http.StatusOK)
	if !strings.Contains(entry.Body, "Restored") {
		t.Errorf("the entry page does not confirm the restore")
	}

	// Restoring an older version of a live entry works the same way.
	b.post("/ui/r/acme/api/~restore", b.restoreForm(t, entry, "notes.md", "1")).must(t, http.StatusSeeOther)
	if err := json.Unmarshal(ts.Get("repo=acme/api", http.StatusOK).Body, &pull); err != nil {
		t.Fatal(err)
	}
	if pull.Content.Entries["notes.md"] != "first\n" {
		t.Fatalf("after restoring v1 the API serves %q", pull.Content.Entries["notes.md"])
	}
}

func TestUIPages(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"MEMORY.md": "# Index\n", "decisions/db.md": "# DB\nWe use Postgres.\nline 3\n"}, nil, http.StatusOK)
	ts.Put("acme/api", map[string]string{"decisions/db.md": "# DB\nWe use Postgres 16.\nline 3\n"}, nil, http.StatusOK)
	bobToken := ts.Token("bob", "acme/api:write")
	body, _ := json.Marshal(api.PutRequest{SoftDeleteKeys: []string{"MEMORY.md"}})
	ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", bobToken, body)
	ts.Put("acme/api", map[string]string{"MEMORY.md": "# Index\n"}, nil, http.StatusOK)
	b := ts.browser(t)
	b.signIn(ts.Token("ana", "acme/*:read"))

	home := b.get("/ui/").must(t, http.StatusOK)
	if !strings.Contains(home.Body, "<td>admin</td>") {
		t.Errorf("the repository list does not name the last author:\n%s", home.Body)
	}
	repo := b.get("/ui/r/Acme/API.git").must(t, http.StatusOK)
	for _, want := range []string{">bob</span>", "v3", ">−MEMORY.md</a>", "v4", "v2"} {
		if !strings.Contains(repo.Body, want) {
			t.Errorf("repository page's activity lacks %q", want)
		}
	}
	older := b.get("/ui/r/acme/api/~activity?before=3").must(t, http.StatusOK)
	// "vN ·" as the activity list writes it: the page's random CSRF token may hold "v3".
	if strings.Contains(older.Body, "v3 ·") || !strings.Contains(older.Body, "v2 ·") || !strings.Contains(older.Body, "v1 ·") {
		t.Errorf("activity before 3:\n%s", older.Body)
	}
	for _, want := range []string{"<h1>Index</h1>", "decisions/", ">db.md</a>", "admin"} {
		if !strings.Contains(repo.Body, want) {
			t.Errorf("repository page lacks %q", want)
		}
	}
	entry := b.get("/ui/r/acme/api/~entry?key=decisions%2Fdb.md").must(t, http.StatusOK)
	for _, want := range []string{"We use Postgres 16.", "Raw text", "v2", "v1", "Compare selected versions"} {
		if !strings.Contains(entry.Body, want) {
			t.Errorf("entry page lacks %q", want)
		}
	}
	old := b.get("/ui/r/acme/api/~entry?key=decisions%2Fdb.md&v=1").must(t, http.StatusOK)
	if !strings.Contains(old.Body, "We use Postgres.") {
		t.Errorf("entry page at v1 does not show v1")
	}
	diff := b.get("/ui/r/acme/api/~diff?key=decisions%2Fdb.md&from=1&to=2").must(t, http.StatusOK)
	for _, want := range []string{`class="opdel"`, "We use Postgres.", `class="opadd"`, "We use Postgres 16."} {
		if !strings.Contains(diff.Body, want) {
			t.Errorf("diff page lacks %q", want)
		}
	}
	search := b.get("/ui/r/acme/api/~search?q=POSTGRES").must(t, http.StatusOK)
	if !strings.Contains(search.Body, "<mark>Postgres</mark>") || !strings.Contains(search.Body, "decisions/db.md") {
		t.Errorf("search page:\n%s", search.Body)
	}
	none := b.get("/ui/r/acme/api/~search?q=mysql").must(t, http.StatusOK)
	if !strings.Contains(none.Body, "No live entry matches") {
		t.Errorf("empty search page:\n%s", none.Body)
	}
	b.get("/ui/r/acme/api/~entry?key=missing.md").must(t, http.StatusNotFound)
	b.get("/ui/r/acme/api/~entry?key=decisions%2Fdb.md&v=9").must(t, http.StatusNotFound)
	b.get("/ui/r/acme/api/~nothing").must(t, http.StatusNotFound)
	b.get("/ui/r/acme//api").must(t, http.StatusBadRequest)
	b.get("/ui/r/acme/api/~search?q="+strings.Repeat("x", 1025)).must(t, http.StatusBadRequest)
}

func TestUIRateLimit(t *testing.T) {
	ts := newTestServer(t, servertest.Options{RateLimit: 1}) // burst 2
	b := ts.browser(t)
	b.signIn(ts.Admin)
	var last page
	for range 4 {
		if last = b.get("/ui/"); last.Status == http.StatusTooManyRequests {
			break
		}
	}
	if last.Status != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
		t.Fatalf("UI over the rate limit: %d, Retry-After %q", last.Status, last.Header.Get("Retry-After"))
	}
}

func TestUIEntryHistoryPages(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	for i := 1; i <= 201; i++ {
		ts.Put("acme/api", map[string]string{"busy.md": "revision " + strings.Repeat("x", i) + "\n"}, nil, http.StatusOK)
	}
	b := ts.browser(t)
	b.signIn(ts.Admin)
	first := b.get("/ui/r/acme/api/~entry?key=busy.md").must(t, http.StatusOK)
	if !strings.Contains(first.Body, ">v201</a>") || !strings.Contains(first.Body, ">v2</a>") || strings.Contains(first.Body, ">v1</a>") {
		t.Fatalf("the first history page does not hold v201 to v2")
	}
	if !strings.Contains(first.Body, "&amp;before=2\">Older revisions") {
		t.Fatalf("no link to the older revisions:\n%s", first.Body)
	}
	older := b.get("/ui/r/acme/api/~entry?key=busy.md&before=2").must(t, http.StatusOK)
	if !strings.Contains(older.Body, ">v1</a>") || strings.Contains(older.Body, ">v2</a>") || strings.Contains(older.Body, "Older revisions") {
		t.Fatalf("the second history page:\n%s", older.Body)
	}
	if !strings.Contains(older.Body, "revision "+strings.Repeat("x", 201)) {
		t.Errorf("the second history page does not show the latest content")
	}
}

func TestUIWithoutAuthentication(t *testing.T) {
	ts := newTestServer(t, servertest.Options{NoAuth: true})
	ts.Put("acme/api", map[string]string{"a.md": "one\n"}, nil, http.StatusOK)
	ts.Put("acme/api", nil, []string{"a.md"}, http.StatusOK)
	b := ts.browser(t)
	home := b.get("/ui/").must(t, http.StatusOK)
	if !strings.Contains(home.Body, "anonymous") || strings.Contains(home.Body, "Sign out") {
		t.Errorf("no-auth home page:\n%s", home.Body)
	}
	if loc := b.get("/ui/login").must(t, http.StatusSeeOther).Header.Get("Location"); loc != "/ui/" {
		t.Errorf("no-auth sign-in page redirects to %q", loc)
	}
	repo := b.get("/ui/r/acme/api").must(t, http.StatusOK)
	form := b.restoreForm(t, repo, "a.md", "")
	b.post("/ui/r/acme/api/~restore", form).must(t, http.StatusSeeOther)
	// A session of this no-auth server means nothing to a server with
	// authentication, and the other way round.
	form.Set("csrf", "x")
	ts.browser(t).post("/ui/r/acme/api/~restore", form).must(t, http.StatusBadRequest)
}

// TestUIFrontDoor: the server's address leads a person to the UI, and the
// static folder lists nothing.
func TestUIFrontDoor(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	b := ts.browser(t)
	root := b.get("/").must(t, http.StatusFound)
	if loc := root.Header.Get("Location"); loc != "/ui/" {
		t.Errorf("GET / redirects to %q; want /ui/", loc)
	}
	for _, path := range []string{"/ui/static/", "/ui/static/nothing.css"} {
		p := b.get(path).must(t, http.StatusNotFound)
		if strings.Contains(p.Body, "style.css\"") && strings.Contains(p.Body, "<pre>") {
			t.Errorf("%s lists the folder:\n%s", path, p.Body)
		}
	}
}

// TestUIEntryFrontmatter: a topic's frontmatter is shown as metadata above
// its body, not rendered as a rule and a heading.
func TestUIEntryFrontmatter(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"ship.md": "---\nname: ship deploys\ndescription: how we ship <b>deploys</b>\ntype: project\n---\n# Shipping\n\nRun the release.\n"}, nil, http.StatusOK)
	b := ts.browser(t)
	b.signIn(ts.Admin)
	p := b.get("/ui/r/acme/api/~entry?key=ship.md").must(t, http.StatusOK)
	md := p.Body[strings.Index(p.Body, `<div class="md">`):]
	md = md[:strings.Index(md, "</div>")]
	for _, want := range []string{`<dt>Name</dt><dd>ship deploys</dd>`, `<dt>Description</dt><dd>how we ship &lt;b&gt;deploys&lt;/b&gt;</dd>`, `<dt>Type</dt><dd>project</dd>`} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("entry page lacks %s", want)
		}
	}
	if strings.Contains(md, "<hr") || strings.Contains(md, "name: ship deploys") || !strings.Contains(md, "<h1") {
		t.Errorf("the body renders the frontmatter:\n%s", md)
	}
}

// TestUIMissingEntryKeepsTheRepository: a link to an entry that does not
// exist answers 404 with the repository's breadcrumb; a repository without
// a grant shows none.
func TestUIMissingEntryKeepsTheRepository(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"MEMORY.md": "- [Gone](gone.md)\n"}, nil, http.StatusOK)
	b := ts.browser(t)
	b.signIn(ts.Admin)
	p := b.get("/ui/r/acme/api/~entry?key=gone.md").must(t, http.StatusNotFound)
	if !strings.Contains(p.Body, `<a href="/ui/r/acme/api">acme/api</a>`) || !strings.Contains(p.Body, "Not found") {
		t.Errorf("missing entry page lacks the repository breadcrumb:\n%s", p.Body)
	}
}
