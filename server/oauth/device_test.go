package oauth_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/servertest"
)

// deviceInterval is the device grant's polling interval in these tests.
const deviceInterval = 100 * time.Millisecond

var deviceOptions = servertest.Options{OAuthDeviceInterval: deviceInterval}

// deviceStart is the device authorization endpoint's answer.
type deviceStart struct {
	Status          int
	DeviceCode      string `json:"device_code"`
	UserCode        string `json:"user_code"`
	VerificationURI string `json:"verification_uri"`
	Complete        string `json:"verification_uri_complete"`
	ExpiresIn       int    `json:"expires_in"`
	Interval        int    `json:"interval"`
	Error           string `json:"error"`
}

func startDevice(t testing.TB, base string, form url.Values) deviceStart {
	t.Helper()
	var out deviceStart
	out.Status = postForm(t, base+"/oauth/device_authorization", form, &out)
	return out
}

// registerDevice registers a client of the device grant alone.
func registerDevice(t testing.TB, base string) string {
	t.Helper()
	resp, err := http.Post(base+"/oauth/register", "application/json", strings.NewReader(
		`{"client_name":"Agent on box","token_endpoint_auth_method":"none","grant_types":["`+deviceGrant+`","refresh_token"]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		ClientID   string   `json:"client_id"`
		GrantTypes []string `json:"grant_types"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusCreated || out.ClientID == "" ||
		strings.Join(out.GrantTypes, " ") != deviceGrant+" refresh_token" {
		t.Fatalf("register a device client: %d %v %+v", resp.StatusCode, err, out)
	}
	return out.ClientID
}

const deviceGrant = "urn:ietf:params:oauth:grant-type:device_code"

func poll(t testing.TB, base, clientID, deviceCode string) tokens {
	t.Helper()
	return tokenCall(t, base, url.Values{"grant_type": {deviceGrant}, "device_code": {deviceCode}, "client_id": {clientID}})
}

// pollAfter waits the interval out, then polls.
func pollAfter(t testing.TB, base, clientID, deviceCode string) tokens {
	t.Helper()
	time.Sleep(deviceInterval + 20*time.Millisecond)
	return poll(t, base, clientID, deviceCode)
}

// answerDevice opens the device page for code in b's browser and answers;
// it returns the answer page.
func (b *browser) answerDevice(base, code, decision string) reply {
	b.t.Helper()
	page := b.do(http.MethodGet, base+"/ui/device?"+url.Values{"user_code": {code}}.Encode(), nil)
	if page.Status != http.StatusOK {
		b.t.Fatalf("device page: %d %s", page.Status, page.Body)
	}
	f := form(page.Body)
	f.Set("decision", decision)
	return b.do(http.MethodPost, base+"/ui/device", f)
}

// TestDeviceFlow: a device starts on one replica and polls the other; the
// person enters the code (as typed: lower case, no dash) on the web UI and
// allows; the device's next poll gets tokens as the person, for the API;
// they refresh; the device code polled again kills the session.
func TestDeviceFlow(t *testing.T) {
	onBothStores(t, deviceOptions, func(t *testing.T, a, b *servertest.Server) {
		var md map[string]any
		getJSON(t, a.URL+"/.well-known/oauth-authorization-server", &md)
		if md["device_authorization_endpoint"] != a.URL+"/oauth/device_authorization" ||
			!strings.Contains(jsonString(md["grant_types_supported"]), deviceGrant) {
			t.Errorf("metadata: %v", md)
		}
		client := registerDevice(t, a.URL)
		d := startDevice(t, a.URL, url.Values{"client_id": {client}})
		if d.Status != http.StatusOK || d.DeviceCode == "" || len(d.UserCode) != 9 || d.UserCode[4] != '-' ||
			d.VerificationURI != a.URL+"/ui/device" || d.Complete != a.URL+"/ui/device?user_code="+d.UserCode ||
			d.ExpiresIn != 600 || d.Interval != 1 {
			t.Fatalf("device authorization: %+v", d)
		}
		if r := poll(t, b.URL, client, d.DeviceCode); r.Error != "authorization_pending" || r.AccessToken != "" {
			t.Errorf("poll before the answer: %+v; want authorization_pending", r)
		}
		ann := newBrowser(t)
		ann.signIn(b.URL, a.Token("ann", "acme/*:write"))
		typed := strings.ToLower(strings.ReplaceAll(d.UserCode, "-", ""))
		page := ann.do(http.MethodGet, b.URL+"/ui/device?user_code="+typed, nil)
		if page.Status != http.StatusOK || !strings.Contains(page.Body, "Agent on box") || !strings.Contains(page.Body, d.UserCode) ||
			!strings.Contains(page.Body, "acme/*:write") || form(page.Body).Get("csrf") == "" {
			t.Fatalf("device page: %d %s", page.Status, page.Body)
		}
		if r := ann.answerDevice(a.URL, typed, "allow"); r.Status != http.StatusOK || !strings.Contains(r.Body, "Device signed in") {
			t.Fatalf("allow: %d %s", r.Status, r.Body)
		}
		tok := pollAfter(t, b.URL, client, d.DeviceCode)
		if tok.Status != http.StatusOK || tok.AccessToken == "" || tok.RefreshToken == "" {
			t.Fatalf("poll after the answer: %+v", tok)
		}
		if s := restStatus(t, a.URL, tok.AccessToken); s != http.StatusOK {
			t.Errorf("the API with the device's access token: %d", s)
		}
		if s := mcpStatus(t, a.URL, tok.AccessToken); s != http.StatusUnauthorized {
			t.Errorf("/mcp with the API's access token: %d; want 401", s)
		}
		if list := ann.do(http.MethodGet, a.URL+"/ui/sessions", nil); !strings.Contains(list.Body, "Agent on box") {
			t.Errorf("Your sessions does not list the device: %s", list.Body)
		}
		r1 := refresh(t, a.URL, client, tok.RefreshToken)
		if r1.Status != http.StatusOK {
			t.Fatalf("refresh: %+v", r1)
		}
		if again := pollAfter(t, a.URL, client, d.DeviceCode); again.Error != "invalid_grant" || again.AccessToken != "" {
			t.Errorf("the device code polled again: %+v; want invalid_grant", again)
		}
		if r := refresh(t, b.URL, client, r1.RefreshToken); r.Error != "invalid_grant" {
			t.Errorf("refresh after the device code's reuse: %+v; want invalid_grant (the session is revoked)", r)
		}
		waitRefused(t, func() int { return restStatus(t, b.URL, r1.AccessToken) })
	})
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestDeviceRefusals: wrong or malformed user codes, an answer without a
// session or with another session's CSRF token, another person's code
// after it was answered, a denial, polling too fast, another client's
// poll, unknown device codes, unknown clients and foreign resources.
func TestDeviceRefusals(t *testing.T) {
	onBothStores(t, deviceOptions, func(t *testing.T, a, b *servertest.Server) {
		client := registerDevice(t, a.URL)
		other := registerDevice(t, a.URL)
		ann, bob := newBrowser(t), newBrowser(t)
		ann.signIn(a.URL, a.Token("ann", "acme/*:write"))
		bob.signIn(b.URL, a.Token("bob", "acme/*:admin"))
		d := startDevice(t, a.URL, url.Values{"client_id": {client}})

		for name, tc := range map[string]struct {
			code   string
			status int
		}{
			"not issued": {"BCDF-GHJK", http.StatusNotFound}, "malformed": {"12345", http.StatusBadRequest},
			"too long": {d.UserCode + "B", http.StatusBadRequest},
		} {
			r := ann.do(http.MethodGet, b.URL+"/ui/device?user_code="+url.QueryEscape(tc.code), nil)
			if r.Status != tc.status || strings.Contains(r.Body, `name="decision"`) || !strings.Contains(r.Body, `role="alert"`) {
				t.Errorf("%s code: %d; want %d, the code form again with why", name, r.Status, tc.status)
			}
			f := form(ann.do(http.MethodGet, a.URL+"/ui/device", nil).Body)
			f.Set("user_code", tc.code)
			f.Set("decision", "allow")
			if r := ann.do(http.MethodPost, a.URL+"/ui/device", f); r.Status != tc.status {
				t.Errorf("%s code allowed: %d; want %d", name, r.Status, tc.status)
			}
		}
		// Signed out: the page leads to the sign-in page and back; a
		// posted answer is refused.
		stranger := newBrowser(t)
		r := stranger.do(http.MethodGet, b.URL+"/ui/device?user_code="+d.UserCode, nil)
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/ui/login?next="+url.QueryEscape("/ui/device?user_code="+d.UserCode) {
			t.Errorf("device page signed out: %d %q; want the sign-in page, back here after", r.Status, r.Header.Get("Location"))
		}
		post := url.Values{"user_code": {d.UserCode}, "decision": {"allow"}}
		if r := stranger.do(http.MethodPost, b.URL+"/ui/device", post); r.Status != http.StatusUnauthorized {
			t.Errorf("answer without a session: %d; want 401", r.Status)
		}
		post.Set("csrf", form(bob.do(http.MethodGet, b.URL+"/ui/device", nil).Body).Get("csrf"))
		if r := ann.do(http.MethodPost, a.URL+"/ui/device", post); r.Status != http.StatusBadRequest {
			t.Errorf("answer with bob's CSRF token in ann's session: %d; want 400", r.Status)
		}
		if r := poll(t, b.URL, client, d.DeviceCode); r.Error != "authorization_pending" {
			t.Errorf("poll after the refused answers: %+v; want authorization_pending", r)
		}
		// Ann answers; her code is no longer anyone's to answer.
		if r := ann.answerDevice(a.URL, d.UserCode, "allow"); r.Status != http.StatusOK {
			t.Fatalf("ann allows: %d %s", r.Status, r.Body)
		}
		if r := bob.do(http.MethodGet, b.URL+"/ui/device?user_code="+d.UserCode, nil); r.Status != http.StatusNotFound {
			t.Errorf("bob opening ann's answered code: %d; want 404", r.Status)
		}
		f := form(bob.do(http.MethodGet, b.URL+"/ui/device", nil).Body)
		f.Set("user_code", d.UserCode)
		for _, decision := range []string{"allow", "deny"} {
			f.Set("decision", decision)
			if r := bob.do(http.MethodPost, b.URL+"/ui/device", f); r.Status != http.StatusNotFound {
				t.Errorf("bob answering %s to ann's code: %d; want 404", decision, r.Status)
			}
		}
		// Another client polling with the device code spends it.
		if r := pollAfter(t, b.URL, other, d.DeviceCode); r.Error != "invalid_grant" || r.AccessToken != "" {
			t.Errorf("another client's poll: %+v; want invalid_grant", r)
		}
		if r := pollAfter(t, b.URL, client, d.DeviceCode); r.Error != "invalid_grant" || r.AccessToken != "" {
			t.Errorf("the device's poll after another client's: %+v; want invalid_grant", r)
		}

		// A device polling too fast is told to slow down, on either
		// replica.
		fast := startDevice(t, a.URL, url.Values{"client_id": {client}})
		if r := poll(t, a.URL, client, fast.DeviceCode); r.Error != "authorization_pending" {
			t.Errorf("first poll: %+v; want authorization_pending", r)
		}
		for _, base := range []string{b.URL, a.URL} {
			if r := poll(t, base, client, fast.DeviceCode); r.Error != "slow_down" {
				t.Errorf("poll again at once: %+v; want slow_down", r)
			}
		}
		if r := pollAfter(t, b.URL, client, fast.DeviceCode); r.Error != "slow_down" {
			t.Errorf("poll after the first interval, grown by 5 s meanwhile: %+v; want slow_down", r)
		}

		// Bob's own device, which he denies.
		denied := startDevice(t, b.URL, url.Values{"client_id": {client}, "resource": {a.URL + "/mcp"}})
		if r := bob.answerDevice(b.URL, denied.UserCode, "deny"); r.Status != http.StatusOK || !strings.Contains(r.Body, "Device refused") {
			t.Fatalf("deny: %d %s", r.Status, r.Body)
		}
		if r := poll(t, a.URL, client, denied.DeviceCode); r.Error != "access_denied" {
			t.Errorf("poll after a denial: %+v; want access_denied", r)
		}

		for name, f := range map[string]url.Values{
			"unknown device code": {"grant_type": {deviceGrant}, "device_code": {"nope"}, "client_id": {client}},
			"no device code":      {"grant_type": {deviceGrant}, "client_id": {client}},
		} {
			if r := tokenCall(t, b.URL, f); r.Status != http.StatusBadRequest || r.AccessToken != "" || r.Error == "authorization_pending" {
				t.Errorf("%s: %+v; want 400", name, r)
			}
		}
		for name, tc := range map[string]struct {
			form url.Values
			want string
		}{
			"unknown client":   {url.Values{"client_id": {"dcr_nobody"}}, "invalid_client"},
			"no client":        {url.Values{}, "invalid_client"},
			"foreign resource": {url.Values{"client_id": {client}, "resource": {"https://other.example/mcp"}}, "invalid_target"},
		} {
			if d := startDevice(t, a.URL, tc.form); d.Status != http.StatusBadRequest || d.Error != tc.want || d.DeviceCode != "" {
				t.Errorf("%s: %+v; want %s", name, d, tc.want)
			}
		}
		// A device client has no redirect URI, and so no authorization
		// code: /oauth/authorize refuses it.
		q := authRequest(client, redirect, a.URL+"/mcp", "s", newPKCE("d"))
		if r := ann.do(http.MethodGet, a.URL+"/oauth/authorize?"+q.Encode(), nil); r.Status != http.StatusBadRequest {
			t.Errorf("authorize with a device client: %d; want 400", r.Status)
		}
		resp, err := http.Post(a.URL+"/oauth/register", "application/json", strings.NewReader(
			`{"client_name":"x","redirect_uris":["`+redirect+`"],"grant_types":["`+deviceGrant+`"]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("a device client with a redirect URI registered: %d; want 400", resp.StatusCode)
		}
	})
}

// TestDeviceGrantRevoked: a device's session dies when the person's own
// sign-in is revoked, at its next refresh.
func TestDeviceGrantRevoked(t *testing.T) {
	onBothStores(t, deviceOptions, func(t *testing.T, a, b *servertest.Server) {
		client := registerDevice(t, a.URL)
		d := startDevice(t, a.URL, url.Values{"client_id": {client}})
		ann := newBrowser(t)
		ann.signIn(a.URL, a.Token("ann", "acme/*:write"))
		ann.answerDevice(b.URL, d.UserCode, "allow")
		tok := poll(t, b.URL, client, d.DeviceCode)
		if tok.Status != http.StatusOK {
			t.Fatalf("poll: %+v", tok)
		}
		a.Revoke(server.Revocation{Subject: "ann", Before: timeNow().Add(time.Second)})
		if r := refresh(t, b.URL, client, tok.RefreshToken); r.Error != "invalid_grant" {
			t.Errorf("refresh after the person's tokens were revoked: %+v; want invalid_grant", r)
		}
	})
}
