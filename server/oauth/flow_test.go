package oauth_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/teammem/teammem/testkit/servertest"
)

const redirect = "http://127.0.0.1:33418/callback"

// TestDiscovery: a 401 names the resource's metadata, which names the
// authorization server, whose metadata names its endpoints and PKCE S256.
func TestDiscovery(t *testing.T) {
	s := servertest.Start(t, servertest.Options{OAuth: true})
	for path, want := range map[string]string{"/mcp": s.URL + "/.well-known/oauth-protected-resource/mcp",
		"/api/v1/repos": s.URL + "/.well-known/oauth-protected-resource"} {
		method := http.MethodGet
		if path == "/mcp" {
			method = http.MethodPost
		}
		status, challenge := call(t, method, s.URL+path, "", mcpInitialize)
		if status != http.StatusUnauthorized || !strings.Contains(challenge, `resource_metadata="`+want+`"`) {
			t.Errorf("%s without a token: %d %q; want 401 naming %s", path, status, challenge, want)
		}
	}
	var prm struct {
		Resource string   `json:"resource"`
		Servers  []string `json:"authorization_servers"`
	}
	getJSON(t, s.URL+"/.well-known/oauth-protected-resource/mcp", &prm)
	if prm.Resource != s.URL+"/mcp" || len(prm.Servers) != 1 || prm.Servers[0] != s.URL {
		t.Errorf("/mcp's resource metadata = %+v", prm)
	}
	getJSON(t, s.URL+"/.well-known/oauth-protected-resource", &prm)
	if prm.Resource != s.URL {
		t.Errorf("the API's resource = %q; want %q", prm.Resource, s.URL)
	}
	var as map[string]any
	getJSON(t, s.URL+"/.well-known/oauth-authorization-server", &as)
	for k, want := range map[string]any{"issuer": s.URL, "token_endpoint": s.URL + "/oauth/token",
		"authorization_endpoint": s.URL + "/oauth/authorize", "registration_endpoint": s.URL + "/oauth/register",
		"authorization_response_iss_parameter_supported": true, "client_id_metadata_document_supported": true} {
		if as[k] != want {
			t.Errorf("metadata %s = %v; want %v", k, as[k], want)
		}
	}
	if m, _ := json.Marshal(as["code_challenge_methods_supported"]); string(m) != `["S256"]` {
		t.Errorf("code_challenge_methods_supported = %s; want [\"S256\"] alone", m)
	}
	// Without OAuth the 401 names no metadata, and there is none.
	plain := servertest.Start(t, servertest.Options{})
	if _, challenge := call(t, http.MethodGet, plain.URL+"/api/v1/repos", "", ""); strings.Contains(challenge, "resource_metadata") {
		t.Errorf("without OAuth: %q", challenge)
	}
	if status, _ := call(t, http.MethodGet, plain.URL+"/.well-known/oauth-authorization-server", "", ""); status != http.StatusNotFound {
		t.Errorf("metadata without OAuth: %d; want 404", status)
	}
}

func getJSON(t testing.TB, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("GET %s: %d, CORS %q", u, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// TestFlow: a person consents; the client's code becomes tokens on the
// other replica; the access token works on its resource alone; refresh
// tokens rotate, a replay kills the family; "Your sessions" lists and
// ends a session.
func TestFlow(t *testing.T) {
	onBothStores(t, servertest.Options{}, func(t *testing.T, a, b *servertest.Server) {
		ann := newBrowser(t)
		ann.signIn(a.URL, a.Token("ann", "acme/*:write"))
		client := register(t, a.URL, redirect)
		p := newPKCE("abc")
		back := ann.consent(a.URL, authRequest(client, redirect, a.URL+"/mcp", "st4te", p), "allow")
		q := back.Query()
		if got := back.Scheme + "://" + back.Host + back.Path; got != redirect || q.Get("state") != "st4te" || q.Get("iss") != a.URL || q.Get("code") == "" {
			t.Fatalf("answer %s; want %s with code, state and iss", back, redirect)
		}
		tok := exchange(t, b.URL, client, redirect, q.Get("code"), p.verifier)
		if tok.Status != http.StatusOK || tok.AccessToken == "" || tok.RefreshToken == "" || tok.ExpiresIn <= 0 || tok.ExpiresIn > 600 {
			t.Fatalf("exchange: %+v", tok)
		}
		if s := mcpStatus(t, b.URL, tok.AccessToken); s != http.StatusOK {
			t.Errorf("/mcp with its access token: %d", s)
		}
		if s := restStatus(t, a.URL, tok.AccessToken); s != http.StatusUnauthorized {
			t.Errorf("the API with /mcp's access token: %d; want 401", s)
		}
		// Rotation across replicas; the rotated token replayed kills all.
		r1 := refresh(t, a.URL, client, tok.RefreshToken)
		if r1.Status != http.StatusOK || r1.RefreshToken == tok.RefreshToken {
			t.Fatalf("refresh: %+v", r1)
		}
		r2 := refresh(t, b.URL, client, r1.RefreshToken)
		if r2.Status != http.StatusOK {
			t.Fatalf("second refresh: %+v", r2)
		}
		if replay := refresh(t, a.URL, client, r1.RefreshToken); replay.Status != http.StatusBadRequest || replay.Error != "invalid_grant" {
			t.Errorf("replayed refresh token: %+v; want invalid_grant", replay)
		}
		if next := refresh(t, b.URL, client, r2.RefreshToken); next.Error != "invalid_grant" {
			t.Errorf("the family's newest token after a replay: %+v; want invalid_grant", next)
		}
		waitRefused(t, func() int { return mcpStatus(t, b.URL, r2.AccessToken) })

		// A second sign-in, for the API this time, listed and ended on
		// "Your sessions".
		p2 := newPKCE("xyz")
		back = ann.consent(b.URL, authRequest(client, redirect, a.URL, "s2", p2), "allow")
		tok = exchange(t, a.URL, client, redirect, back.Query().Get("code"), p2.verifier)
		if s := restStatus(t, b.URL, tok.AccessToken); s != http.StatusOK {
			t.Errorf("the API with its access token: %d", s)
		}
		if s := mcpStatus(t, b.URL, tok.AccessToken); s != http.StatusUnauthorized {
			t.Errorf("/mcp with the API's access token: %d; want 401", s)
		}
		list := ann.do(http.MethodGet, a.URL+"/ui/sessions", nil)
		if list.Status != http.StatusOK || strings.Count(list.Body, `name="id"`) != 1 || !strings.Contains(list.Body, "Test client") {
			t.Fatalf("Your sessions: %d %s", list.Status, list.Body)
		}
		bob := newBrowser(t)
		bob.signIn(a.URL, a.Token("bob", "acme/*:admin"))
		end := form(list.Body)
		bobForm := form(bob.do(http.MethodGet, a.URL+"/ui/sessions", nil).Body)
		end.Set("csrf", bobForm.Get("csrf"))
		if r := bob.do(http.MethodPost, a.URL+"/ui/sessions", end); r.Status != http.StatusNotFound {
			t.Errorf("bob ending ann's session: %d; want 404", r.Status)
		}
		if r := ann.do(http.MethodPost, b.URL+"/ui/sessions", form(list.Body)); r.Status != http.StatusSeeOther {
			t.Fatalf("ending the session: %d %s", r.Status, r.Body)
		}
		if r := refresh(t, a.URL, client, tok.RefreshToken); r.Error != "invalid_grant" {
			t.Errorf("refresh of an ended session: %+v", r)
		}
		waitRefused(t, func() int { return restStatus(t, a.URL, tok.AccessToken) })
		if r := ann.do(http.MethodGet, a.URL+"/ui/sessions", nil); strings.Contains(r.Body, `name="id"`) {
			t.Errorf("an ended session is still listed")
		}
		want := []string{"session.start ann by ann/web/token", "session.revoke ann by server/oauth/: the refresh token was already used",
			"session.start ann by ann/web/token", "session.revoke ann by ann/web/session"}
		if got := sessionActs(t, a.Store); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("the server's audit chain's session acts:\n got %q\nwant %q", got, want)
		}
	})
}

// waitRefused waits for the revocation list's next read (its staleness
// bound is a millisecond in these tests) and fails unless status is 401.
func waitRefused(t testing.TB, status func() int) {
	t.Helper()
	for range 100 {
		if status() == http.StatusUnauthorized {
			return
		}
	}
	t.Errorf("an access token of a revoked session is still accepted")
}
