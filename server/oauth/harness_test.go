package oauth_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/testkit/pgtest"
	"github.com/teammem/teammem/testkit/servertest"
)

// onBothStores runs fn on a server over the embedded store and on two
// replicas over one Postgres database (a and b then differ; b is told
// that its public URL is a's, as replicas behind one name are).
func onBothStores(t *testing.T, o servertest.Options, fn func(t *testing.T, a, b *servertest.Server)) {
	t.Run("sqlite", func(t *testing.T) {
		o := o
		o.OAuth, o.RevocationRefresh = true, time.Millisecond
		a := servertest.Start(t, o)
		fn(t, a, a)
	})
	t.Run("postgres", func(t *testing.T) {
		o := o
		o.OAuth, o.RevocationRefresh = true, time.Millisecond
		a, b := servertest.PostgresReplicas(t, o, pgtest.URL(t))
		fn(t, a, b)
	})
}

// browser is a person's browser: a cookie jar, redirects not followed.
type browser struct {
	t      testing.TB
	client *http.Client
}

func newBrowser(t testing.TB) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// reply is an HTTP answer read whole.
type reply struct {
	Status int
	Header http.Header
	Body   string
}

func (b *browser) do(method, u string, form url.Values) reply {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, string(data)}
}

// signIn signs the browser in to the web UI at base with a token.
func (b *browser) signIn(base, token string) {
	b.t.Helper()
	if r := b.do(http.MethodPost, base+"/ui/login", url.Values{"token": {token}}); r.Status != http.StatusSeeOther {
		b.t.Fatalf("sign in: %d %s", r.Status, r.Body)
	}
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// form reads a page's hidden form fields.
func form(body string) url.Values {
	v := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(body, -1) {
		v.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	return v
}

// pkce is a verifier and its S256 challenge.
type pkce struct{ verifier, challenge string }

func newPKCE(seed string) pkce {
	v := strings.Repeat(seed, 43/len(seed)+1)[:43]
	sum := sha256.Sum256([]byte(v))
	return pkce{v, base64.RawURLEncoding.EncodeToString(sum[:])}
}

// authRequest is the query of an authorization request.
func authRequest(clientID, redirect, resource, state string, p pkce) url.Values {
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {resource}}
	if state != "" {
		q.Set("state", state)
	}
	return q
}

// consent runs an authorization request through /oauth/authorize and the
// consent page, answering allow or deny, and returns where the browser is
// sent at the end.
func (b *browser) consent(base string, q url.Values, decision string) *url.URL {
	b.t.Helper()
	r := b.do(http.MethodGet, base+"/oauth/authorize?"+q.Encode(), nil)
	if r.Status != http.StatusOK || !strings.Contains(r.Body, `http-equiv="refresh"`) {
		b.t.Fatalf("authorize: %d %v %s", r.Status, r.Header, r.Body)
	}
	page := b.do(http.MethodGet, base+"/ui/oauth/consent?"+q.Encode(), nil)
	if page.Status != http.StatusOK {
		b.t.Fatalf("consent page: %d %s", page.Status, page.Body)
	}
	f := form(page.Body)
	f.Set("decision", decision)
	r = b.do(http.MethodPost, base+"/ui/oauth/consent", f)
	if r.Status != http.StatusSeeOther {
		b.t.Fatalf("consent: %d %s", r.Status, r.Body)
	}
	u, err := url.Parse(r.Header.Get("Location"))
	if err != nil {
		b.t.Fatal(err)
	}
	return u
}

// register registers a client by DCR and returns its id.
func register(t testing.TB, base string, redirects ...string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": "Test client", "redirect_uris": redirects, "token_endpoint_auth_method": "none"})
	resp, err := http.Post(base+"/oauth/register", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		ClientID string `json:"client_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusCreated || out.ClientID == "" {
		t.Fatalf("register: %d %v %+v", resp.StatusCode, err, out)
	}
	return out.ClientID
}

// tokens is the token endpoint's answer.
type tokens struct {
	Status       int
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int    `json:"expires_in"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

func tokenCall(t testing.TB, base string, form url.Values) tokens {
	t.Helper()
	var out tokens
	out.Status = postForm(t, base+"/oauth/token", form, &out)
	return out
}

// postForm posts form to u, decodes the JSON answer into v and returns
// the status.
func postForm(t testing.TB, u string, form url.Values, v any) int {
	t.Helper()
	resp, err := http.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("answer of %s: %v", u, err)
	}
	return resp.StatusCode
}

func exchange(t testing.TB, base, clientID, redirect, code, verifier string) tokens {
	t.Helper()
	return tokenCall(t, base, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {clientID},
		"redirect_uri": {redirect}, "code_verifier": {verifier}})
}

func refresh(t testing.TB, base, clientID, rt string) tokens {
	t.Helper()
	return tokenCall(t, base, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {clientID}})
}

// call sends a request with a bearer token and returns the status and the
// WWW-Authenticate header.
func call(t testing.TB, method, u, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// restStatus is a REST call's status with token: the repository list.
func restStatus(t testing.TB, base, token string) int {
	s, _ := call(t, http.MethodGet, base+"/api/v1/repos", token, "")
	return s
}

func mcpStatus(t testing.TB, base, token string) int {
	s, _ := call(t, http.MethodPost, base+"/mcp", token, mcpInitialize)
	return s
}

var timeNow = time.Now
