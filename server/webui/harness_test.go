package webui_test

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/teammem/teammem/testkit/servertest"
)

// testServer is a real server (embedded store unless one is given, real
// auth) behind httptest: testkit/servertest's, with the browser helpers.
type testServer struct {
	*servertest.Server
	t *testing.T
}

func newTestServer(t *testing.T, o servertest.Options) *testServer {
	t.Helper()
	return &testServer{Server: servertest.Start(t, o), t: t}
}

// browser is a cookie-keeping client of the web UI that does not follow
// redirects, so tests see each answer.
type browser struct {
	t      *testing.T
	ts     *testServer
	client *http.Client
}

// page is one answer of the UI.
type page struct {
	Status int
	Header http.Header
	Body   string
}

func (ts *testServer) browser(t *testing.T) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &browser{t: t, ts: ts, client: c}
}

// signIn posts the sign-in form and fails unless it redirects to /ui/.
func (b *browser) signIn(token string) {
	b.t.Helper()
	p := b.post("/ui/login", url.Values{"token": {token}})
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/ui/" {
		b.t.Fatalf("sign in: %d %s: %s", p.Status, p.Header.Get("Location"), p.Body)
	}
}

func (b *browser) get(path string) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.ts.URL+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.do(req)
}

// post sends a form as a same-origin browser would.
func (b *browser) post(path string, form url.Values, headers ...string) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.ts.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return b.do(req)
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return page{Status: resp.StatusCode, Header: resp.Header, Body: string(body)}
}

// must fails unless the page has the status.
func (p page) must(t *testing.T, status int) page {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status %d, want %d:\n%s", p.Status, status, p.Body)
	}
	return p
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the CSRF token of the page's forms.
func (p page) csrf(t *testing.T) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no CSRF token on the page:\n%s", p.Body)
	}
	return m[1]
}

// formValue is the value of the first hidden input named name after the
// first occurrence of anchor.
func (p page) formValue(t *testing.T, anchor, name string) string {
	t.Helper()
	i := strings.Index(p.Body, anchor)
	if i < 0 {
		t.Fatalf("%q not on the page:\n%s", anchor, p.Body)
	}
	m := regexp.MustCompile(`name="` + name + `" value="([^"]*)"`).FindStringSubmatch(p.Body[i:])
	if m == nil {
		t.Fatalf("no %s field after %q", name, anchor)
	}
	return m[1]
}

// restoreForm follows the page's restore link for key (of version, or
// the first when version is "") to the page that asks to confirm it, and
// returns that page's form as the browser would post it.
func (b *browser) restoreForm(t *testing.T, p page, key, version string) url.Values {
	t.Helper()
	v := `\d+`
	if version != "" {
		v = regexp.QuoteMeta(version)
	}
	re := regexp.MustCompile(`href="([^"]*/~restore\?key=` + regexp.QuoteMeta(url.QueryEscape(key)) + `&amp;version=` + v + `)"`)
	m := re.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no restore link for %s (version %q) on the page:\n%s", key, version, p.Body)
	}
	confirm := b.get(html.UnescapeString(m[1])).must(t, http.StatusOK)
	form := url.Values{"csrf": {confirm.csrf(t)}}
	for _, name := range []string{"key", "version", "base"} {
		form.Set(name, confirm.formValue(t, `/~restore"`, name))
	}
	return form
}
