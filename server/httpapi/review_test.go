package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
)

// Regression tests for findings of the protocol review.

func TestIfMatchAndIfNoneMatchLists(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	cur := decode[api.PutResponse](t, ts.put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK))
	ts.put("acme/api", map[string]string{"b.md": "b"}, nil, http.StatusOK, "If-Match", `"sha256:stale", "`+cur.Checksum+`"`)
	ts.put("acme/api", map[string]string{"c.md": "c"}, nil, http.StatusPreconditionFailed, "If-Match", `"sha256:stale", W/"sha256:older"`)
	ts.put("acme/api", map[string]string{"c.md": "c"}, nil, http.StatusPreconditionFailed, "If-Match", `""`)
	h := decode[api.Hashes](t, ts.get("repo=acme/api&view=hashes", http.StatusOK))

	// An If-None-Match list split over two header lines.
	req, _ := http.NewRequest(http.MethodGet, ts.url+api.PathTeamMemory+"?repo=acme/api", nil)
	req.Header.Set("Authorization", "Bearer "+ts.admin)
	req.Header.Add("If-None-Match", `"sha256:other"`)
	req.Header.Add("If-None-Match", `"`+h.Checksum+`"`)
	resp, err := ts.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match over two lines = %d, want 304", resp.StatusCode)
	}
}

func TestSinceNewerThanVersionIsGone(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	ts.put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK)
	r := ts.get("repo=acme/api&since=7", http.StatusGone)
	if r.errorBody(t).Code() != api.CodeSinceTooOld {
		t.Errorf("since beyond the version: %s", r.body)
	}
}

func TestNULContentRefused(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	r := ts.do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.admin, []byte(`{"entries":{"a.md":"x\u0000y"}}`))
	if res := decode[api.PutResponse](t, r); r.status != http.StatusOK || len(res.Skipped) != 1 || res.Skipped[0].Reason != api.SkipInvalidContent {
		t.Errorf("NUL content = %d %s; want a.md skipped as invalid_content", r.status, r.body)
	}
}

func TestRepoCredentialsNeverEchoed(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	const secret = "ghp_notARealTokenButSecretAnyway"
	r := ts.do(http.MethodGet, api.PathTeamMemory+"?repo=https://ana:"+secret+"@github.com/acme//api", ts.admin, nil)
	if r.status != http.StatusBadRequest || strings.Contains(string(r.body), secret) {
		t.Errorf("invalid URL-shaped repo: %d %s", r.status, r.body)
	}
	// A URL-shaped repo that canonicalises works and names the canonical slug.
	ts.put("https://ana:"+secret+"@github.com/acme/api.git", map[string]string{"a.md": "a"}, nil, http.StatusOK)
	if tm := decode[api.TeamMemory](t, ts.get("repo=acme/api", http.StatusOK)); tm.Repo != "acme/api" {
		t.Errorf("repo = %q", tm.Repo)
	}
}

func TestNoOpPutOnNewRepo(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	// openapi validation inside put checks lastModified's format.
	res := decode[api.PutResponse](t, ts.put("acme/new", nil, nil, http.StatusOK))
	if res.Version != 0 || !lastModifiedRE.MatchString(res.LastModified) {
		t.Errorf("no-op PUT on a new repo = %+v", res)
	}
	ts.get("repo=acme/new", http.StatusNotFound)
}

func TestInventedMethodsShareOneLabel(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	for _, m := range []string{"FOO", "BAR", "BAZ"} {
		ts.send(false, m, api.PathHealthz, "", nil)
	}
	body := string(ts.do(http.MethodGet, api.PathMetrics, "", nil).body)
	if strings.Contains(body, `method="FOO"`) || !strings.Contains(body, `method="other"`) {
		t.Error("invented methods became metric labels")
	}
}

// TestPreconditionBeforeContent checks that a stale If-Match is answered 412
// before the body is read (RFC 9110 §13.2.1), and that the store's atomic
// check still decides when the early check passes.
func TestPreconditionBeforeContent(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	cur := decode[api.PutResponse](t, ts.put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK))
	// The request is malformed on purpose: only the response is checked against openapi.yaml below.
	r := ts.send(false, http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.admin, []byte(`not json`), "If-Match", `"sha256:stale"`)
	if r.status != http.StatusPreconditionFailed || r.errorBody(t).Details["checksum"] != cur.Checksum {
		t.Errorf("stale If-Match with a bad body = %d %s", r.status, r.body)
	}
	r = ts.do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.admin, []byte(`not json`), "If-Match", `"`+cur.Checksum+`"`)
	if r.status != http.StatusBadRequest {
		t.Errorf("current If-Match with a bad body = %d, want 400", r.status)
	}
	stranger := ts.token("eve", "other/*:write")
	if r := ts.do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", stranger, []byte(`{}`), "If-Match", `"sha256:stale"`); r.status != http.StatusForbidden {
		t.Errorf("stale If-Match without a grant = %d, want 403", r.status)
	}
}

func TestMarkdownNotHTMLEscaped(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	ts.put("acme/api", map[string]string{"a.md": "<b>R&D</b> -> ok"}, nil, http.StatusOK)
	r := ts.get("repo=acme/api", http.StatusOK)
	if !strings.Contains(string(r.body), `<b>R&D</b> -> ok`) {
		t.Errorf("content escaped: %s", r.body)
	}
}
