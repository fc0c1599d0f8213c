package httpapi_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/testkit/servertest"
)

// hostileKeys must each be refused with 400 invalid_key, writing nothing.
var hostileKeys = []string{
	"../x.md", "a/../../b.md", "..", "./x.md", "a/./b.md", "%2e%2e/x.md", "..%2fx.md", "%2E%2E%2Fx.md", `..\x.md`, `a\b.md`,
	"/etc/passwd.md", "/x.md", `C:\x.md`, "C:x.md", `\\server\share\x.md`, "//server/share/x.md",
	"．．／x.md", "a∕b.md", "a⁄b.md", "a＼b.md", "x．md", "‥/x.md", "a\u2024md",
	"a\x00.md", "a\r\nb.md", "a\nb.md", "\x1b[31mred.md", "zero\u200bwidth.md", "join\u200dme.md", "\ufeffbom.md", "rlo\u202egnp.md", "lro\u202dx.md",
	"CON.md", "con .md", "Con.txt", "PRN.md", "aux.md", "NUL.txt", "COM1.md", "com¹.md", "LPT9.txt", "lpt³.md", "CONIN$.md", "conout$.md", "dir/nul.md",
	"trailing.md.", "trailing.md ", "dir./x.md", "dir /x.md", " lead.md", "-lead.md",
	".git/config", ".git/x.md", ".hidden.md", "a/.b.md", ".teammem/state.md",
	"a//b.md", "a/", "/", "", "x", "x.sh", "x.md.exe", "notes.markdown",
	"a:b.md", "notes: q3.md", "*.md", "?.md", `"x".md`, "<x>.md", "|x.md", "a%20b.md", "a%2fb.md", "℀.md", "a\u200d😀.md",
	"cafe\u0301.md",
	strings.Repeat("a", 510) + ".md",
	strings.Repeat("a", 253) + ".md",
	strings.Repeat("d/", 16) + "x.md",
	"\xff\xfe.md",
	"a @.env#.md", "bob@acme.md", "g ＠x.md", // an at sign starts an @-import
}

// validKeys must be accepted.
var validKeys = []string{
	"MEMORY.md", "decisions/2026-05 db choice.md", "Q&A.md", "决策记录.md", "notes/a.b-c_d.md", "README.TXT", "x.Md",
	"Заметки.md", "ملاحظات.md", "हिन्दी.md", "con-notes.md", "(draft) [v2] {x} a+b=c; d,e 'f' !g #h ^j.md",
	strings.Repeat("d/", 15) + "x.md", strings.Repeat("a", 252) + ".md",
	// The names the stock client syncs (spec/memcore.md §8).
	".trash/old.md", "🚀 launch.md", "👩\u200d💻 team.md", "it’s done.md", "50% done.md", "cost $5.md", "~draft.md",
	"notes/[wip] plan.md", "~x.md", "$x.md", "a`b.md", "emoji😀.md", "a©b.md",
}

func TestHostileKeysRefused(t *testing.T) {
	if len(hostileKeys) < 50 {
		t.Fatalf("only %d hostile keys", len(hostileKeys))
	}
	ts := newTestServer(t, servertest.Options{})
	base := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", map[string]string{"MEMORY.md": "index"}, nil, http.StatusOK))
	for _, key := range hostileKeys {
		t.Run(url.PathEscape(key), func(t *testing.T) {
			for _, body := range []api.PutRequest{
				{Entries: map[string]string{key: "x"}},
				{SoftDeleteKeys: []string{key}},
			} {
				raw, _ := json.Marshal(body)
				r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.Admin, raw)
				if r.Status != http.StatusOK {
					t.Fatalf("status %d, want 200 with the key skipped: %s", r.Status, r.Body)
				}
				res := servertest.Decode[api.PutResponse](t, r)
				if len(res.Skipped) != 1 || res.Skipped[0].Reason != api.SkipInvalidKey || len(res.Changed)+len(res.Deleted) != 0 {
					t.Errorf("PUT = %s; want the key skipped as invalid_key and nothing changed", r.Body)
				}
			}
		})
	}
	h := servertest.Decode[api.Hashes](t, ts.Get("repo=acme/api&view=hashes", http.StatusOK))
	if h.Version != base.Version || h.Checksum != base.Checksum {
		t.Errorf("hostile PUTs changed the repo: %+v", h)
	}
	for _, key := range []string{"../x.md", ".git/config", "CON.md"} {
		if r := ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key="+url.QueryEscape(key), ts.Admin, nil); r.Status != http.StatusBadRequest {
			t.Errorf("history of %q = %d", key, r.Status)
		}
	}
}

func TestValidKeysAccepted(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	entries := map[string]string{}
	for _, k := range validKeys {
		entries[k] = "content of " + k
	}
	ts.Put("acme/api", entries, nil, http.StatusOK)
	got := servertest.Decode[api.TeamMemory](t, ts.Get("repo=acme/api", http.StatusOK))
	for _, k := range validKeys {
		if got.Content.Entries[k] != entries[k] {
			t.Errorf("key %q did not round-trip", k)
		}
	}
}

func TestHostileReposRefused(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	for _, repo := range []string{"", "acme", "acme//web", "../etc/passwd", "acme/../x", "acme/./x", "a/b/c/d/e/f/g/h/i", strings.Repeat("a", 100) + "/" + strings.Repeat("b", 101),
		"acme/web$", "acme/we b", "acme/w\x00b", "acme/wéb", "acme/web?x=1", `acme\web`, "acme/%2e%2e", "/", "//", "acme/web/", "acme/.."} {
		t.Run(url.QueryEscape(repo), func(t *testing.T) {
			q := "repo=" + url.QueryEscape(repo)
			r := ts.Do(http.MethodGet, api.PathTeamMemory+"?"+q, ts.Admin, nil)
			if repo == "acme/web/" { // surrounding slashes are removed: a valid slug
				if r.Status != http.StatusNotFound {
					t.Errorf("status %d, want 404", r.Status)
				}
				return
			}
			if r.Status != http.StatusBadRequest || r.ErrorBody(t).Code() != api.CodeInvalidRepo {
				t.Errorf("GET status %d: %s", r.Status, r.Body)
			}
			r = ts.Do(http.MethodPut, api.PathTeamMemory+"?"+q, ts.Admin, []byte(`{"entries":{"a.md":"a"}}`))
			if r.Status != http.StatusBadRequest {
				t.Errorf("PUT status %d: %s", r.Status, r.Body)
			}
		})
	}
	if repos := servertest.Decode[api.RepoList](t, ts.Do(http.MethodGet, api.PathRepos, ts.Admin, nil)); len(repos.Repos) != 0 {
		t.Errorf("hostile slugs created repos: %+v", repos)
	}
}

func TestMalformedBodies(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	base := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK))
	for name, body := range map[string]string{
		"not json":              `entries: x`,
		"empty":                 ``,
		"array":                 `[]`,
		"null":                  `null`,
		"string":                `"x"`,
		"entries array":         `{"entries":["a.md"]}`,
		"entries string":        `{"entries":"a.md"}`,
		"entry number":          `{"entries":{"b.md":42}}`,
		"entry object":          `{"entries":{"b.md":{"content":"x"}}}`,
		"entry null":            `{"entries":{"b.md":null}}`,
		"deletes string":        `{"soft_delete_keys":"a.md"}`,
		"deletes numbers":       `{"soft_delete_keys":[1,2]}`,
		"delete null":           `{"soft_delete_keys":[null]}`,
		"trailing garbage":      `{"entries":{"b.md":"x"}} {}`,
		"truncated":             `{"entries":{"b.md":"x"`,
		"put and delete":        `{"entries":{"b.md":"x"},"soft_delete_keys":["b.md"]}`,
		"deeply nested unknown": `{"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `,"entries":{"b.md":3}}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.Admin, []byte(body))
			if r.Status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", r.Status, r.Body)
			}
			if e := r.ErrorBody(t); e.Type != api.TypeInvalidRequest || strings.Contains(e.Message, "json:") && len(e.Message) > 300 {
				t.Errorf("error = %+v", e)
			}
		})
	}
	// Content that is not UTF-8 text skips its entry, not the request.
	for name, body := range map[string]string{
		"invalid utf8":        "{\"entries\":{\"b.md\":\"\xff\xfe\"}}",
		"lone high surrogate": `{"entries":{"b.md":"\ud800"}}`,
		"lone low surrogate":  `{"entries":{"b.md":"x\udc00y"}}`,
		"high then not low":   `{"entries":{"b.md":"\ud800\u0041"}}`,
	} {
		r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.Admin, []byte(body))
		if res := servertest.Decode[api.PutResponse](t, r); len(res.Skipped) != 1 || res.Skipped[0].Reason != api.SkipInvalidContent || len(res.Changed) != 0 {
			t.Errorf("%s: %s; want b.md skipped as invalid_content", name, r.Body)
		}
	}
	// Unknown fields are ignored; a valid surrogate pair is fine.
	ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.Admin, []byte(`{"future":1,"entries":{"emoji.md":"\ud83d\ude00"}}`))
	h := servertest.Decode[api.Hashes](t, ts.Get("repo=acme/api&view=hashes", http.StatusOK))
	if h.Version != base.Version+1 || len(h.EntryChecksums) != 2 {
		t.Errorf("after malformed bodies: %+v", h)
	}
	if r := ts.Send(false, http.MethodPost, api.PathTeamMemory+"?repo=acme/api", ts.Admin, []byte(`{}`)); r.Status != http.StatusMethodNotAllowed {
		t.Errorf("POST = %d", r.Status)
	}
}

func TestAuthentication(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK)
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	now := time.Now()
	sign := func(key any, method jwt.SigningMethod, claims jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(method, claims).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	good := func() jwt.MapClaims {
		return jwt.MapClaims{"iss": auth.DefaultIssuer, "aud": auth.Audience, "sub": "eve", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "grants": []string{"**:admin"}}
	}
	with := func(k string, v any) jwt.MapClaims {
		c := good()
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	valid := sign(ts.Key, jwt.SigningMethodEdDSA, good())
	parts := strings.Split(valid, ".")
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"teammem-server","aud":"teammem","sub":"eve","exp":9999999999,"grants":["**:admin"],"x":1}`)) + "." + parts[2]
	noneTok := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."
	hsSwap := sign([]byte(ts.Key.Public().(ed25519.PublicKey)), jwt.SigningMethodHS256, good())
	headerSwap := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + parts[1] + "." + parts[2]

	for name, tok := range map[string]string{
		"none header":      "",
		"garbage":          "not-a-jwt",
		"alg none":         noneTok,
		"other key":        sign(otherKey, jwt.SigningMethodEdDSA, good()),
		"tampered payload": tampered,
		"no exp":           sign(ts.Key, jwt.SigningMethodEdDSA, with("exp", nil)),
		"expired":          sign(ts.Key, jwt.SigningMethodEdDSA, with("exp", now.Add(-2*time.Minute).Unix())),
		"wrong audience":   sign(ts.Key, jwt.SigningMethodEdDSA, with("aud", "other")),
		"no audience":      sign(ts.Key, jwt.SigningMethodEdDSA, with("aud", nil)),
		"wrong issuer":     sign(ts.Key, jwt.SigningMethodEdDSA, with("iss", "evil")),
		"HS256 with pub":   hsSwap,
		"header alg swap":  headerSwap,
		"future iat":       sign(ts.Key, jwt.SigningMethodEdDSA, with("iat", now.Add(10*time.Minute).Unix())),
		"bad grant":        sign(ts.Key, jwt.SigningMethodEdDSA, with("grants", []string{"acme:owner"})),
	} {
		t.Run(name, func(t *testing.T) {
			r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", tok, nil)
			if r.Status != http.StatusUnauthorized || r.ErrorBody(t).Type != api.TypeAuthentication {
				t.Fatalf("status %d, want 401: %s", r.Status, r.Body)
			}
			if tok != "" && strings.Contains(string(r.Body), tok) {
				t.Error("the token was echoed")
			}
			if r.Header.Get("WWW-Authenticate") == "" {
				t.Error("no WWW-Authenticate header")
			}
		})
	}
	if r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", valid, nil); r.Status != http.StatusOK {
		t.Errorf("valid token = %d", r.Status)
	}
}

func TestAuthorization(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK)
	reader := ts.Token("ana", "acme/api:read")
	stranger := ts.Token("bob", "other/*:write")
	for name, c := range map[string]struct {
		method, query, token string
		want                 int
	}{
		"reader pulls":                     {http.MethodGet, "repo=acme/api", reader, 200},
		"reader cannot push":               {http.MethodPut, "repo=acme/api", reader, 403},
		"stranger cannot see existing":     {http.MethodGet, "repo=acme/api", stranger, 403},
		"stranger cannot see missing":      {http.MethodGet, "repo=acme/missing", stranger, 403},
		"stranger hashes":                  {http.MethodGet, "repo=acme/api&view=hashes", stranger, 403},
		"stranger conditional on existing": {http.MethodGet, "repo=acme/api", stranger, 403},
		"writer of other repo pushes it":   {http.MethodPut, "repo=other/x", stranger, 200},
	} {
		t.Run(name, func(t *testing.T) {
			r := ts.Do(c.method, api.PathTeamMemory+"?"+c.query, c.token, []byte(`{"entries":{"b.md":"b"}}`), "If-None-Match", `"x"`)
			if c.method == http.MethodGet {
				r = ts.Do(c.method, api.PathTeamMemory+"?"+c.query, c.token, nil)
			}
			if r.Status != c.want {
				t.Fatalf("status %d, want %d: %s", r.Status, c.want, r.Body)
			}
			if c.want == 403 && r.ErrorBody(t).Type != api.TypePermission {
				t.Errorf("403 type: %s", r.Body)
			}
		})
	}
	for _, p := range []string{api.PathHistory + "?repo=acme/api&key=a.md", api.PathRevision + "?repo=acme/api&key=a.md&version=1"} {
		if r := ts.Do(http.MethodGet, p, stranger, nil); r.Status != http.StatusForbidden {
			t.Errorf("%s as stranger = %d", p, r.Status)
		}
	}
}

func TestRateLimit(t *testing.T) {
	ts := newTestServer(t, servertest.Options{RateLimit: 1}) // burst 2
	ts.Put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK)
	var limited servertest.Response
	for i := 0; i < 5; i++ {
		if r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", ts.Admin, nil); r.Status == http.StatusTooManyRequests {
			limited = r
			break
		}
	}
	if limited.Status != http.StatusTooManyRequests {
		t.Fatal("no 429 after exceeding the burst")
	}
	if ra := limited.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("Retry-After = %q", ra)
	}
	if limited.ErrorBody(t).Type != api.TypeRateLimit {
		t.Errorf("429 body: %s", limited.Body)
	}
	// Another subject has its own bucket.
	if r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", ts.Token("other", "**:read"), nil); r.Status != http.StatusOK {
		t.Errorf("other subject = %d", r.Status)
	}
}
