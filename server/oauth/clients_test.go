package oauth_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/teammem/teammem/testkit/servertest"
)

// TestClientMetadataDocument: a client whose id is the https URL of its
// metadata document signs in without registering; a document that does
// not name itself, or names an unfit redirect URI, is refused.
func TestClientMetadataDocument(t *testing.T) {
	docs := map[string]map[string]any{}
	host := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(doc)
	}))
	defer host.Close()
	good := host.URL + "/good.json"
	docs["/good.json"] = map[string]any{"client_id": good, "client_name": "Documented client", "redirect_uris": []string{redirect}}
	docs["/impostor.json"] = map[string]any{"client_id": host.URL + "/good.json", "redirect_uris": []string{redirect}}
	docs["/javascript.json"] = map[string]any{"client_id": host.URL + "/javascript.json", "redirect_uris": []string{"javascript:alert(1)"}}
	docs["/secret.json"] = map[string]any{"client_id": host.URL + "/secret.json", "redirect_uris": []string{redirect},
		"token_endpoint_auth_method": "client_secret_basic"}

	onBothStores(t, servertest.Options{OAuthMetadataClient: host.Client()}, func(t *testing.T, a, b *servertest.Server) {
		ann := newBrowser(t)
		ann.signIn(a.URL, a.Token("ann", "acme/*:read"))
		p := newPKCE("doc")
		page := ann.do(http.MethodGet, b.URL+"/ui/oauth/consent?"+authRequest(good, redirect, a.URL+"/mcp", "s", p).Encode(), nil)
		if !strings.Contains(page.Body, "Documented client") {
			t.Errorf("the consent page does not name the documented client: %s", page.Body)
		}
		back := ann.consent(a.URL, authRequest(good, redirect, a.URL+"/mcp", "s", p), "allow")
		if tok := exchange(t, b.URL, good, redirect, back.Query().Get("code"), p.verifier); tok.Status != http.StatusOK {
			t.Fatalf("exchange for a documented client: %+v", tok)
		}
		for _, doc := range []string{"/impostor.json", "/javascript.json", "/secret.json", "/missing.json"} {
			q := authRequest(host.URL+doc, redirect, a.URL+"/mcp", "s", p)
			if r := ann.do(http.MethodGet, b.URL+"/oauth/authorize?"+q.Encode(), nil); r.Status != http.StatusBadRequest || r.Header.Get("Location") != "" {
				t.Errorf("client %s: %d %q; want 400, no redirect", doc, r.Status, r.Header.Get("Location"))
			}
		}
	})
}

// TestRegistrationRefusals: dynamic registration takes public clients
// whose redirect URIs are https, the loopback over http, or an app's own
// scheme; nothing else.
func TestRegistrationRefusals(t *testing.T) {
	s := servertest.Start(t, servertest.Options{OAuth: true})
	for name, body := range map[string]string{
		"not JSON":            `redirect_uris=x`,
		"no redirect":         `{"client_name":"x"}`,
		"javascript redirect": `{"redirect_uris":["javascript:alert(1)"]}`,
		"data redirect":       `{"redirect_uris":["data:text/html,hi"]}`,
		"plain http remote":   `{"redirect_uris":["http://evil.example/cb"]}`,
		"fragment":            `{"redirect_uris":["https://app.example/cb#x"]}`,
		"relative":            `{"redirect_uris":["/cb"]}`,
		"confidential":        `{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"client_secret_post"}`,
		"implicit":            `{"redirect_uris":["https://app.example/cb"],"response_types":["token"]}`,
		"control characters":  `{"redirect_uris":["https://app.example/cb"],"client_name":"a\u0007b"}`,
	} {
		resp, err := http.Post(s.URL+"/oauth/register", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d; want 400", name, resp.StatusCode)
		}
	}
	for _, ok := range []string{"https://app.example/cb", "http://localhost:1234/cb", "http://[::1]:9/cb", "cursor://anysphere.cursor-retrieval/oauth/callback"} {
		register(t, s.URL, ok)
	}
}
