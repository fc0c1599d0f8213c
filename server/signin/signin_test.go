package signin_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/server/signin"
	"github.com/teammem/teammem/testkit/servertest"
)

// teammem starts a server whose web UI signs people in with the provider
// at issuer as client id (asking it again at every page when recheck is
// true), registered with the provider.
func teammem(t *testing.T, issuer, clientID string, recheck bool) *servertest.Server {
	t.Helper()
	m, err := signin.ParseClaimGrant("groups=platform=acme/*:write")
	if err != nil {
		t.Fatal(err)
	}
	idp, err := signin.New(context.Background(), signin.Config{Issuer: issuer + "/", ClientID: clientID,
		ClientSecret: "secret-" + clientID, Name: "Acme SSO", Map: []signin.ClaimGrant{m}})
	if err != nil {
		t.Fatal(err)
	}
	o := servertest.Options{Provider: idp, OAuth: true}
	if recheck {
		o.SignInRecheck = time.Nanosecond
	}
	s := servertest.Start(t, o)
	register(clientID, s.URL+"/ui/login/oidc/callback")
	return s
}

// browser follows redirects with a cookie jar.
type browser struct {
	t      testing.TB
	client *http.Client
}

func newBrowser(t testing.TB) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, client: &http.Client{Jar: jar}}
}

func (b *browser) get(u string) (int, string) {
	b.t.Helper()
	resp, err := b.client.Get(u)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// signIn signs the browser in to teammem at base with the provider's
// user and password, and returns the status and body of the page the
// callback answers.
func (b *browser) signIn(p *provider, base, user, password string) (int, string) {
	b.t.Helper()
	status, body := b.get(base + "/ui/login/oidc")
	if status != http.StatusOK {
		b.t.Fatalf("to the provider: %d %s", status, body)
	}
	resp, err := b.client.PostForm(p.URL+"/login/username", url.Values{"username": {user}, "password": {password}, "id": {loginID(b.t, body)}})
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(page)
}

// TestSignInWithProvider: the sign-in page leads with the provider; a
// person signs in there and is the subject of their email, with the grants
// of their groups; leaving a group takes effect at the next check; the
// token box still works.
func TestSignInWithProvider(t *testing.T) {
	p := startProvider(t)
	s := teammem(t, p.URL, "teammem", true)
	c, err := client.New(client.Options{BaseURL: s.URL, Token: s.Admin})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(context.Background(), "acme/api", api.PutRequest{Entries: map[string]string{"deploy.md": "---\ndescription: how we deploy\n---\nship it\n"}}, ""); err != nil {
		t.Fatal(err)
	}
	ann := newBrowser(t)
	if _, login := ann.get(s.URL + "/ui/login"); !strings.Contains(login, "Sign in with Acme SSO") || !strings.Contains(login, `name="token"`) {
		t.Fatalf("the sign-in page does not lead with the provider and keep the token box:\n%s", login)
	}
	if status, page := ann.signIn(p, s.URL, "ann", "pw-ann"); status != http.StatusOK || !strings.Contains(page, `http-equiv="refresh"`) {
		t.Fatalf("callback: %d %s", status, page)
	}
	status, home := ann.get(s.URL + "/ui/")
	if status != http.StatusOK || !strings.Contains(home, "ann@acme.example") {
		t.Fatalf("after sign-in: %d %s", status, home)
	}
	if status, _ := ann.get(s.URL + "/ui/r/acme/api"); status != http.StatusOK {
		t.Errorf("ann (group platform) reading acme/api: %d", status)
	}
	// Ann leaves platform at the provider: the next page asks again.
	p.setGroups("u-ann")
	if status, _ := ann.get(s.URL + "/ui/r/acme/api"); status == http.StatusOK {
		t.Errorf("ann, out of platform, still reads acme/api")
	}
	p.setGroups("u-ann", "platform")
	if status, _ := ann.get(s.URL + "/ui/r/acme/api"); status != http.StatusOK {
		t.Errorf("ann, back in platform: %d", status)
	}
	// Break glass: the token box signs in as before.
	glass := newBrowser(t)
	resp, err := glass.client.PostForm(s.URL+"/ui/login", url.Values{"token": {s.Admin}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if status, home := glass.get(s.URL + "/ui/"); status != http.StatusOK || !strings.Contains(home, "admin") {
		t.Errorf("token sign-in: %d", status)
	}
}

// TestSignInRefusesForeignIDTokens: an ID token the provider issued to
// another client (audience), or one another provider issued, put in the
// token answer in place of the real one, is refused; so is a callback
// whose state this browser did not start.
func TestSignInRefusesForeignIDTokens(t *testing.T) {
	p := startProvider(t)
	other := startProvider(t)
	s := teammem(t, p.URL, "teammem", false)
	sOther := teammem(t, p.URL, "other-app", false)
	sElsewhere := teammem(t, other.URL, "teammem", false)
	register("teammem", s.URL+"/ui/login/oidc/callback", sElsewhere.URL+"/ui/login/oidc/callback")

	newBrowser(t).signIn(p, sOther.URL, "ann", "pw-ann")
	otherAudience := p.idToken()
	newBrowser(t).signIn(other, sElsewhere.URL, "ann", "pw-ann")
	otherIssuer := other.idToken()
	for name, token := range map[string]string{"another audience": otherAudience, "another issuer": otherIssuer} {
		p.swap(token)
		b := newBrowser(t)
		status, page := b.signIn(p, s.URL, "ann", "pw-ann")
		if status != http.StatusUnauthorized || strings.Contains(page, "http-equiv") {
			t.Errorf("%s: %d %s; want 401 on the sign-in page", name, status, page)
		}
		if _, home := b.get(s.URL + "/ui/"); strings.Contains(home, "ann@acme.example") {
			t.Errorf("%s: signed in", name)
		}
	}
	p.swap("")
	b := newBrowser(t)
	if status, _ := b.get(s.URL + "/ui/login/oidc/callback?code=x&state=forged"); status != http.StatusBadRequest {
		t.Errorf("a callback this browser did not start: %d; want 400", status)
	}
}
