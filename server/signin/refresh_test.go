package signin_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/signin"
	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

// The OAuth sessions (MCP clients, the agent) a person consents to after
// signing in with the provider follow the provider at every refresh: a
// group removed there narrows the next access token, every group removed
// or the provider's refresh token revoked ends the session, on the
// embedded store and on two replicas of one Postgres database.

// clientRedirect is the redirect URI of the test's OAuth client (never
// dialled: the browser stops at it).
const clientRedirect = "http://127.0.0.1:1/callback"

// onStores runs fn on servers a and b (a replica of a on
// Postgres; a itself on SQLite) that map platform to acme/*:write and eng
// to acme/handbook:read and ask the provider at every refresh, and signs
// ann (platform and eng) in to a's web UI.
func onStores(t *testing.T, p *provider, extra servertest.Options, fn func(t *testing.T, a, b *servertest.Server, ann *browser)) {
	o := extra
	if o.Provider == nil {
		o.Provider = mappedProvider(t, p)
	}
	o.OAuth, o.SignInRecheck, o.RevocationRefresh = true, time.Nanosecond, time.Millisecond
	t.Run("sqlite", func(t *testing.T) {
		a := servertest.Start(t, o)
		fn(t, a, a, annSignedIn(t, p, a))
	})
	t.Run("postgres", func(t *testing.T) {
		a, b := servertest.PostgresReplicas(t, o, pgtest.URL(t))
		fn(t, a, b, annSignedIn(t, p, a))
	})
}

// mappedProvider is the provider p as teammem's, mapping platform to
// acme/*:write and eng to acme/handbook:read, asking for scopes (the
// default ones when none).
func mappedProvider(t testing.TB, p *provider, scopes ...string) *signin.Provider {
	var maps []signin.ClaimGrant
	for _, m := range []string{"groups=platform=acme/*:write", "groups=eng=acme/handbook:read"} {
		cg, err := signin.ParseClaimGrant(m)
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, cg)
	}
	idp, err := signin.New(context.Background(), signin.Config{Issuer: p.URL + "/", ClientID: "teammem",
		ClientSecret: "secret-teammem", Map: maps, Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return idp
}

// annSignedIn writes acme/api and acme/handbook at s and signs ann
// (platform and eng) in to its web UI with the provider.
func annSignedIn(t testing.TB, p *provider, s *servertest.Server) *browser {
	register("teammem", s.URL+"/ui/login/oidc/callback")
	c, err := client.New(client.Options{BaseURL: s.URL, Token: s.Admin})
	if err != nil {
		t.Fatal(err)
	}
	for _, repo := range []string{"acme/api", "acme/handbook"} {
		if _, err := c.Put(context.Background(), repo, api.PutRequest{Entries: map[string]string{"a.md": "---\ndescription: a\n---\nbody\n"}}, ""); err != nil {
			t.Fatal(err)
		}
	}
	p.setGroups("u-ann", "platform", "eng")
	ann := newBrowser(t)
	ann.client.CheckRedirect = func(r *http.Request, _ []*http.Request) error {
		if r.URL.Host == "127.0.0.1:1" {
			return http.ErrUseLastResponse
		}
		return nil
	}
	if status, page := ann.signIn(p, s.URL, "ann", "pw-ann"); status != http.StatusOK {
		t.Fatalf("sign-in: %d %s", status, page)
	}
	return ann
}

// BenchmarkRefreshWithSignIn is an OAuth refresh of a session consented
// from a sign-in with the provider (the in-process test OP, over HTTP):
// "fresh" within --oidc-recheck (the stored answer), "asks" past it (a
// refresh at the provider, its userinfo, and the sign-in written back).
func BenchmarkRefreshWithSignIn(b *testing.B) {
	p := startProvider(b)
	for _, c := range []struct {
		name    string
		recheck time.Duration
	}{{"fresh", time.Hour}, {"asks", time.Nanosecond}} {
		b.Run(c.name, func(b *testing.B) {
			s := servertest.Start(b, servertest.Options{Provider: mappedProvider(b, p), OAuth: true, SignInRecheck: c.recheck})
			id, tok := annSignedIn(b, p, s).consentREST(s.URL, s.URL)
			b.ResetTimer()
			for range b.N {
				if tok = refreshAt(b, s.URL, id, tok.RefreshToken); tok.Status != http.StatusOK {
					b.Fatalf("refresh: %+v", tok)
				}
			}
		})
	}
}

var hiddenField = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// consentREST registers a client at base, has the browser consent to it
// for the REST API (named resource), and returns the client's id and
// tokens.
func (b *browser) consentREST(base, resource string) (string, tokenAnswer) {
	b.t.Helper()
	reg, _ := json.Marshal(map[string]any{"client_name": "Agent", "redirect_uris": []string{clientRedirect}, "token_endpoint_auth_method": "none"})
	resp, err := http.Post(base+"/oauth/register", "application/json", strings.NewReader(string(reg)))
	if err != nil {
		b.t.Fatal(err)
	}
	var client struct {
		ID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&client)
	resp.Body.Close()
	const verifier = "a-verifier-of-forty-three-characters-long-ok"
	q := url.Values{"response_type": {"code"}, "client_id": {client.ID}, "redirect_uri": {clientRedirect},
		"code_challenge": {s256(verifier)}, "code_challenge_method": {"S256"}, "resource": {resource}, "state": {"st"}}
	status, page := b.get(base + "/ui/oauth/consent?" + q.Encode())
	if status != http.StatusOK {
		b.t.Fatalf("consent page: %d %s", status, page)
	}
	f := url.Values{"decision": {"allow"}}
	for _, m := range hiddenField.FindAllStringSubmatch(page, -1) {
		f.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	resp, err = b.client.PostForm(base+"/ui/oauth/consent", f)
	if err != nil {
		b.t.Fatal(err)
	}
	resp.Body.Close()
	to, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || to.Query().Get("code") == "" {
		b.t.Fatalf("consent: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return client.ID, tokenCall(b.t, base, url.Values{"grant_type": {"authorization_code"}, "code": {to.Query().Get("code")},
		"client_id": {client.ID}, "redirect_uri": {clientRedirect}, "code_verifier": {verifier}})
}

func s256(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// tokenAnswer is the token endpoint's answer.
type tokenAnswer struct {
	Status       int
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	Error        string `json:"error"`
}

func tokenCall(t testing.TB, base string, form url.Values) tokenAnswer {
	t.Helper()
	resp, err := http.PostForm(base+"/oauth/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out tokenAnswer
	json.NewDecoder(resp.Body).Decode(&out)
	out.Status = resp.StatusCode
	return out
}

func refreshAt(t testing.TB, base, clientID, token string) tokenAnswer {
	t.Helper()
	return tokenCall(t, base, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {clientID}})
}

// reads reports whether the access token reads repo at base.
func reads(t *testing.T, base, token, repo string) bool {
	t.Helper()
	c, err := client.New(client.Options{BaseURL: base, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), repo, client.GetOptions{})
	return err == nil
}

// live reports whether ann's OAuth sessions include one of client.
func live(t *testing.T, s *servertest.Server, clientID string) bool {
	t.Helper()
	list, err := s.Store.(server.OAuthStore).OAuthSessions(context.Background(), "ann@acme.example", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, sess := range list {
		if sess.ClientID == clientID {
			return true
		}
	}
	return false
}

// TestOAuthRefreshNarrowsToProviderGroups: ann leaves platform at the
// provider; the next refresh of her agent's session (at the other
// replica) gives a token that no longer reads acme/api but still reads
// acme/handbook (eng); leaving eng too ends the session at the next
// refresh, which then shows no more among her sessions.
func TestOAuthRefreshNarrowsToProviderGroups(t *testing.T) {
	p := startProvider(t)
	onStores(t, p, servertest.Options{}, func(t *testing.T, a, b *servertest.Server, ann *browser) {
		id, tok := ann.consentREST(a.URL, a.URL)
		if tok.Status != http.StatusOK || !reads(t, a.URL, tok.AccessToken, "acme/api") {
			t.Fatalf("after consent: %+v", tok)
		}
		p.setGroups("u-ann", "eng")
		next := refreshAt(t, b.URL, id, tok.RefreshToken)
		if next.Status != http.StatusOK {
			t.Fatalf("refresh after leaving platform: %+v", next)
		}
		if reads(t, a.URL, next.AccessToken, "acme/api") {
			t.Errorf("the token refreshed after ann left platform still reads acme/api")
		}
		if !reads(t, b.URL, next.AccessToken, "acme/handbook") {
			t.Errorf("the token refreshed after ann left platform no longer reads acme/handbook (eng)")
		}
		p.setGroups("u-ann")
		if last := refreshAt(t, a.URL, id, next.RefreshToken); last.Status != http.StatusBadRequest || last.Error != "invalid_grant" {
			t.Fatalf("refresh after leaving every group: %+v; want invalid_grant", last)
		}
		if live(t, b, id) {
			t.Errorf("the session of a person with no grant left is still live")
		}
		if _, page := ann.get(b.URL + "/ui/sessions"); !strings.Contains(page, "Ended in the last 7 days") ||
			!strings.Contains(page, "no longer hold any of the grants") {
			t.Errorf("Your sessions does not show the session ended, and why:\n%s", page)
		}
	})
}

// TestOAuthSessionEndsWithProviderSignIn: the provider revokes ann's
// refresh token; the next refresh of any session she consented from that
// sign-in fails with invalid_grant, every such session ends, and so does
// her web session.
func TestOAuthSessionEndsWithProviderSignIn(t *testing.T) {
	p := startProvider(t)
	onStores(t, p, servertest.Options{}, func(t *testing.T, a, b *servertest.Server, ann *browser) {
		id1, tok1 := ann.consentREST(a.URL, a.URL)
		id2, tok2 := ann.consentREST(b.URL, a.URL)
		if tok1.Status != http.StatusOK || tok2.Status != http.StatusOK {
			t.Fatalf("consents: %+v %+v", tok1, tok2)
		}
		p.revoke("u-ann")
		if r := refreshAt(t, b.URL, id1, tok1.RefreshToken); r.Error != "invalid_grant" {
			t.Fatalf("refresh after the provider revoked the sign-in: %+v; want invalid_grant", r)
		}
		if live(t, a, id1) || live(t, a, id2) {
			t.Errorf("sessions of the revoked sign-in are still live")
		}
		ended, err := b.Store.(server.OAuthStore).EndedOAuthSessions(context.Background(), "ann@acme.example", time.Now().Add(-time.Hour))
		if err != nil || len(ended) != 2 || ended[0].EndedWhy != "the identity provider refused the refresh" {
			t.Errorf("ended sessions: %+v, %v; want both, ended as the provider refused the refresh", ended, err)
		}
		if r := refreshAt(t, a.URL, id2, tok2.RefreshToken); r.Error != "invalid_grant" {
			t.Errorf("the other session's refresh: %+v; want invalid_grant", r)
		}
		if reads(t, a.URL, tok1.AccessToken, "acme/api") {
			t.Errorf("the ended session's access token is still accepted")
		}
		if _, home := ann.get(a.URL + "/ui/"); strings.Contains(home, "ann@acme.example") {
			t.Errorf("the web session outlived the provider's revocation")
		}
	})
}

// TestOAuthRefreshAcrossReplicas: two sessions of one sign-in refresh at
// once on two replicas, many times; the provider's refresh token, which
// the test provider rotates at every use, is spent by one at a time, so
// both go on. A refresh token replayed after its rotation still ends its
// session.
func TestOAuthRefreshAcrossReplicas(t *testing.T) {
	p := startProvider(t)
	onStores(t, p, servertest.Options{}, func(t *testing.T, a, b *servertest.Server, ann *browser) {
		id1, tok1 := ann.consentREST(a.URL, a.URL)
		id2, tok2 := ann.consentREST(a.URL, a.URL)
		var wg sync.WaitGroup
		for _, c := range []struct {
			base, id string
			tok      *tokenAnswer
		}{{a.URL, id1, &tok1}, {b.URL, id2, &tok2}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					next := refreshAt(t, c.base, c.id, c.tok.RefreshToken)
					if next.Status != http.StatusOK {
						t.Errorf("concurrent refresh at %s: %+v", c.base, next)
						return
					}
					*c.tok = next
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		old := tok1.RefreshToken
		next := refreshAt(t, b.URL, id1, old)
		if next.Status != http.StatusOK {
			t.Fatalf("refresh: %+v", next)
		}
		if r := refreshAt(t, a.URL, id1, old); r.Error != "invalid_grant" {
			t.Fatalf("replayed refresh token: %+v; want invalid_grant", r)
		}
		if r := refreshAt(t, b.URL, id1, next.RefreshToken); r.Error != "invalid_grant" || live(t, a, id1) {
			t.Errorf("after a replay the family lives on: %+v", r)
		}
		if r := refreshAt(t, b.URL, id2, tok2.RefreshToken); r.Status != http.StatusOK {
			t.Errorf("the other session of the sign-in ended with the replayed one: %+v", r)
		}
	})
}

// TestOAuthRefreshThroughProviderOutage: while the provider answers 503,
// a refresh keeps the grants of its last answer for the grace; past it,
// the refresh is refused with temporarily_unavailable and spends nothing,
// and the same refresh token works once the provider is back.
func TestOAuthRefreshThroughProviderOutage(t *testing.T) {
	p := startProvider(t)
	const grace = 2 * time.Second
	onStores(t, p, servertest.Options{SignInGrace: grace}, func(t *testing.T, a, b *servertest.Server, ann *browser) {
		id, tok := ann.consentREST(a.URL, a.URL)
		if tok.Status != http.StatusOK {
			t.Fatalf("consent: %+v", tok)
		}
		p.setDown(true)
		defer p.setDown(false)
		next := refreshAt(t, b.URL, id, tok.RefreshToken)
		if next.Status != http.StatusOK || !reads(t, a.URL, next.AccessToken, "acme/api") {
			t.Fatalf("refresh while the provider is down, within the grace: %+v", next)
		}
		time.Sleep(grace + 100*time.Millisecond)
		if r := refreshAt(t, a.URL, id, next.RefreshToken); r.Status != http.StatusServiceUnavailable || r.Error != "temporarily_unavailable" {
			t.Fatalf("refresh past the grace: %+v; want 503 temporarily_unavailable", r)
		}
		if !live(t, a, id) {
			t.Fatalf("the outage ended the session")
		}
		p.setDown(false)
		if r := refreshAt(t, b.URL, id, next.RefreshToken); r.Status != http.StatusOK || !reads(t, b.URL, r.AccessToken, "acme/api") {
			t.Errorf("refresh once the provider is back: %+v", r)
		}
	})
}

// TestOAuthRefreshThroughUserinfoOutage: the provider answers the refresh
// grant (rotating its refresh token, as the example OP does) but its
// userinfo endpoint is down. The refresh is an outage, within the grace
// ann's session keeps its grants, and the provider's new refresh token is
// kept: once userinfo is back, the next refresh asks with it and goes
// through. Dropping it, the next ask spent the old token, the provider
// refused it, and the outage signed ann out.
func TestOAuthRefreshThroughUserinfoOutage(t *testing.T) {
	p := startProvider(t)
	onStores(t, p, servertest.Options{}, func(t *testing.T, a, b *servertest.Server, ann *browser) {
		id, tok := ann.consentREST(a.URL, a.URL)
		if tok.Status != http.StatusOK {
			t.Fatalf("consent: %+v", tok)
		}
		p.setUserinfoDown(true)
		defer p.setUserinfoDown(false)
		next := refreshAt(t, b.URL, id, tok.RefreshToken)
		if next.Status != http.StatusOK || !reads(t, a.URL, next.AccessToken, "acme/api") {
			t.Fatalf("refresh while userinfo is down, within the grace: %+v", next)
		}
		p.setUserinfoDown(false)
		for i := range 2 {
			if next = refreshAt(t, a.URL, id, next.RefreshToken); next.Status != http.StatusOK || !reads(t, a.URL, next.AccessToken, "acme/api") {
				t.Fatalf("refresh %d once userinfo is back: %+v", i, next)
			}
		}
		if !live(t, a, id) {
			t.Errorf("the userinfo outage ended the session")
		}
	})
}

// signOut signs the browser out of the web UI at base, with the CSRF
// token of its home page, which must show it signed in.
func (b *browser) signOut(t *testing.T, base string) {
	t.Helper()
	_, home := b.get(base + "/ui/")
	if !strings.Contains(home, "ann@acme.example") {
		t.Fatalf("the web session ended at a recheck")
	}
	form := url.Values{}
	for _, m := range hiddenField.FindAllStringSubmatch(home, -1) {
		form.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	resp, err := b.client.PostForm(base+"/ui/logout", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if form.Get("csrf") == "" || resp.StatusCode >= 400 {
		t.Fatalf("sign-out: %d (csrf %q)", resp.StatusCode, form.Get("csrf"))
	}
}

// TestOAuthSessionOutlivesWebSignOut: signing out of the web UI ends the
// web session only; the agent ann consented from it goes on refreshing,
// the provider still vouching for her, and the sign-in's record stays
// while that session lives. The sign-in asked the provider for a refresh
// token the way Google needs too (access_type=offline).
func TestOAuthSessionOutlivesWebSignOut(t *testing.T) {
	p := startProvider(t)
	if u := mappedProvider(t, p).AuthCodeURL("http://teammem.test/cb", "s", "n", "c"); !strings.Contains(u, "access_type=offline") {
		t.Errorf("the sign-in's URL %s does not ask for offline access", u)
	}
	onStores(t, p, servertest.Options{}, func(t *testing.T, a, b *servertest.Server, ann *browser) {
		id, tok := ann.consentREST(a.URL, a.URL)
		if tok.Status != http.StatusOK {
			t.Fatalf("consent: %+v", tok)
		}
		ann.signOut(t, a.URL)
		if _, home := ann.get(a.URL + "/ui/"); strings.Contains(home, "ann@acme.example") {
			t.Fatalf("still signed in to the web UI after signing out")
		}
		for i := range 2 {
			if tok = refreshAt(t, b.URL, id, tok.RefreshToken); tok.Status != http.StatusOK || !reads(t, a.URL, tok.AccessToken, "acme/api") {
				t.Fatalf("refresh %d after the web sign-out: %+v", i, tok)
			}
		}
	})
}

// TestOAuthRefreshWithoutProviderRefreshToken: a provider that gives no
// refresh token (the sign-in asked without offline_access, as with
// Google) cannot be asked again; ann's agent session keeps the grants it
// was consented, refresh after refresh, instead of ending at the first
// recheck, and ends with the web session it came from.
func TestOAuthRefreshWithoutProviderRefreshToken(t *testing.T) {
	p := startProvider(t)
	o := servertest.Options{Provider: mappedProvider(t, p, "email", "profile")}
	onStores(t, p, o, func(t *testing.T, a, b *servertest.Server, ann *browser) {
		id, tok := ann.consentREST(a.URL, a.URL)
		if tok.Status != http.StatusOK {
			t.Fatalf("consent: %+v", tok)
		}
		for i := range 3 {
			if tok = refreshAt(t, b.URL, id, tok.RefreshToken); tok.Status != http.StatusOK || !reads(t, a.URL, tok.AccessToken, "acme/api") {
				t.Fatalf("refresh %d of a sign-in without a provider refresh token: %+v", i, tok)
			}
		}
		ann.signOut(t, a.URL)
		if r := refreshAt(t, a.URL, id, tok.RefreshToken); r.Error != "invalid_grant" {
			t.Errorf("refresh after the web session ended: %+v; want invalid_grant", r)
		}
	})
}
