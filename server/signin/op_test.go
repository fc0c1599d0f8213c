package signin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// The tests sign in against a real OpenID Connect provider: zitadel/oidc's
// example OP (its op package: discovery, JWKS, the authorization code flow
// with PKCE, refresh tokens, userinfo; its example storage and login
// form), in the test's process. The provider also answers a groups claim
// the test changes, and its token answers pass through a hook that can put
// another provider's ID token in them.

// provider is a running OP.
type provider struct {
	URL string // the issuer, without the final slash
	mu  sync.Mutex
	// groups are each user's groups (by user id).
	groups map[string][]string
	// swapIDToken, when set, replaces the ID token of the token answers.
	swapIDToken string
	// lastIDToken is the ID token of the last token answer.
	lastIDToken string
	// down, when set, answers 503 to every refresh (the provider out);
	// userinfoDown, to every userinfo request (the token endpoint up).
	down, userinfoDown bool
	// refreshes counts the refresh grants answered.
	refreshes int
	st        *groupStorage
}

// users of the provider: id → user.
var users = map[string]*storage.User{
	"u-ann": {ID: "u-ann", Username: "ann", Password: "pw-ann", FirstName: "Ann", LastName: "Lee",
		Email: "ann@acme.example", EmailVerified: true, PreferredLanguage: language.English},
	"u-bob": {ID: "u-bob", Username: "bob", Password: "pw-bob", FirstName: "Bob", LastName: "Roe",
		Email: "bob@acme.example", EmailVerified: true, PreferredLanguage: language.English},
}

type userStore struct{}

func (userStore) GetUserByID(id string) *storage.User { return users[id] }
func (userStore) GetUserByUsername(name string) *storage.User {
	for _, u := range users {
		if u.Username == name {
			return u
		}
	}
	return nil
}
func (userStore) ExampleClientID() string { return "teammem" }

// groupStorage is the example storage with a groups claim in the userinfo.
type groupStorage struct {
	*storage.Storage
	p *provider
}

func (g *groupStorage) SetUserinfoFromToken(ctx context.Context, info *oidc.UserInfo, tokenID, subject, origin string) error {
	if err := g.Storage.SetUserinfoFromToken(ctx, info, tokenID, subject, origin); err != nil {
		return err
	}
	g.p.mu.Lock()
	defer g.p.mu.Unlock()
	info.AppendClaims("groups", slices.Clone(g.p.groups[info.Subject]))
	return nil
}

// startProvider starts an OP whose clients are registered by client.
func startProvider(t testing.TB) *provider {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &provider{URL: "http://" + ln.Addr().String(), groups: map[string][]string{"u-ann": {"platform"}, "u-bob": {"sales"}}}
	st := &groupStorage{Storage: storage.NewStorage(userStore{}), p: p}
	p.st = st
	h := exampleop.SetupServer(p.URL+"/", st, slog.New(slog.DiscardHandler), false, op.WithAllowInsecure())
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: p.hook(h)}}
	srv.Start()
	t.Cleanup(srv.Close)
	return p
}

// register registers a confidential web client with every OP of the
// test (the example keeps its clients in one table).
func register(id string, redirects ...string) {
	storage.RegisterClients(storage.WebClient(id, "secret-"+id, redirects...))
}

// hook records the ID token of each token answer and swaps it when told.
func (p *provider) hook(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/oauth/token" {
			p.mu.Lock()
			down := p.userinfoDown && strings.HasSuffix(r.URL.Path, "/userinfo")
			p.mu.Unlock()
			if down {
				http.Error(w, "userinfo down", http.StatusServiceUnavailable)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if r.ParseForm(); r.PostForm.Get("grant_type") == "refresh_token" {
			p.mu.Lock()
			down := p.down
			p.refreshes++
			p.mu.Unlock()
			if down {
				http.Error(w, "upstream down", http.StatusServiceUnavailable)
				return
			}
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		var answer map[string]any
		if json.Unmarshal(body, &answer) == nil && answer["id_token"] != nil {
			p.mu.Lock()
			p.lastIDToken, _ = answer["id_token"].(string)
			if p.swapIDToken != "" {
				answer["id_token"] = p.swapIDToken
				body, _ = json.Marshal(answer)
			}
			p.mu.Unlock()
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		io.Copy(w, bytes.NewReader(body))
	})
}

func (p *provider) setGroups(user string, groups ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.groups[user] = groups
}

// revoke ends the user's tokens at the provider, as signing them out
// there or disabling them does.
func (p *provider) revoke(user string) {
	p.st.TerminateSession(context.Background(), user, "teammem")
}

func (p *provider) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
}

func (p *provider) setUserinfoDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.userinfoDown = down
}

func (p *provider) idToken() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastIDToken
}

func (p *provider) swap(token string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.swapIDToken = token
}

// loginForm is the OP's sign-in form: its request id.
func loginID(t testing.TB, body string) string {
	t.Helper()
	const marker = `name="id" value="`
	i := strings.Index(body, marker)
	if i < 0 {
		t.Fatalf("no sign-in form at the provider:\n%s", body)
	}
	rest := body[i+len(marker):]
	return rest[:strings.IndexByte(rest, '"')]
}
