//go:build unix

package e2e

import (
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/teammem/teammem/testkit/pgtest"
)

var csrfFieldRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// uiRequest sends one request to the web UI at base with the session
// cookie value alone (a copy of the cookie, wherever it came from), not
// following redirects; it returns the status, the Location and the body.
func uiRequest(t *testing.T, method, base, path, cookie string, form url.Values) (int, string, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "teammem_session", Value: cookie})
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

// TestUISignOutAcrossReplicas runs two server processes on one Postgres
// database (sharing the signing key, as replicas behind a load balancer
// do): a browser signs in through one and out through the other, and a
// copy of its cookie taken before is refused by both at once.
func TestUISignOutAcrossReplicas(t *testing.T) {
	dbURL := pgtest.URL(t)
	d1, d2 := t.TempDir(), t.TempDir()
	s1 := launchServer(t, d1, "--addr", "127.0.0.1:0", "--rate-limit", "0", "--database-url", dbURL, "--migrate")
	s2 := launchServer(t, d2, "--addr", "127.0.0.1:0", "--rate-limit", "0", "--database-url", dbURL,
		"--signing-key-file", filepath.Join(d1, "signing.key"))
	token, _ := createToken(t, d1, "ana", "--database-url", dbURL)

	// Sign in at the first replica: the cookie, as the browser got it.
	req, _ := http.NewRequest(http.MethodPost, s1.url()+"/ui/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in at the first replica: %d", resp.StatusCode)
	}
	var cookie string
	for _, c := range resp.Cookies() {
		if c.Name == "teammem_session" {
			cookie = c.Value
		}
	}
	if cookie == "" {
		t.Fatal("no session cookie")
	}
	var home string
	for _, s := range []*serverProc{s1, s2} {
		var code int
		if code, _, home = uiRequest(t, http.MethodGet, s.url(), "/ui/", cookie, nil); code != http.StatusOK {
			t.Fatalf("%s before the sign-out: %d", s.addr, code)
		}
	}
	m := csrfFieldRE.FindStringSubmatch(home)
	if m == nil {
		t.Fatalf("no sign-out form:\n%s", home)
	}
	if code, loc, _ := uiRequest(t, http.MethodPost, s2.url(), "/ui/logout", cookie, url.Values{"csrf": {m[1]}}); code != http.StatusSeeOther || loc != "/ui/login" {
		t.Fatalf("sign out at the second replica: %d %s", code, loc)
	}
	for _, s := range []*serverProc{s1, s2} {
		if code, loc, _ := uiRequest(t, http.MethodGet, s.url(), "/ui/", cookie, nil); code != http.StatusSeeOther || loc != "/ui/login" {
			t.Errorf("%s: the signed-out cookie opens /ui/: %d %s; want the sign-in redirect", s.addr, code, loc)
		}
	}
}
