package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/servertest"
)

// Regression tests for findings of the protocol review.

func TestIfMatchAndIfNoneMatchLists(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	cur := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK))
	ts.Put("acme/api", map[string]string{"b.md": "b"}, nil, http.StatusOK, "If-Match", `"sha256:stale", "`+cur.Checksum+`"`)
	ts.Put("acme/api", map[string]string{"c.md": "c"}, nil, http.StatusPreconditionFailed, "If-Match", `"sha256:stale", W/"sha256:older"`)
	ts.Put("acme/api", map[string]string{"c.md": "c"}, nil, http.StatusPreconditionFailed, "If-Match", `""`)
	h := servertest.Decode[api.Hashes](t, ts.Get("repo=acme/api&view=hashes", http.StatusOK))

	// An If-None-Match list split over two header lines.
	req, _ := http.NewRequest(http.MethodGet, ts.URL+api.PathTeamMemory+"?repo=acme/api", nil)
	req.Header.Set("Authorization", "Bearer "+ts.Admin)
	req.Header.Add("If-None-Match", `"sha256:other"`)
	req.Header.Add("If-None-Match", `"`+h.Checksum+`"`)
	resp, err := ts.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match over two lines = %d, want 304", resp.StatusCode)
	}
}

func TestSinceNewerThanVersionIsGone(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK)
	r := ts.Get("repo=acme/api&since=7", http.StatusGone)
	if r.ErrorBody(t).Code() != api.CodeSinceTooOld {
		t.Errorf("since beyond the version: %s", r.Body)
	}
}

func TestNULContentRefused(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.Admin, []byte(`{"entries":{"a.md":"x\u0000y"}}`))
	if res := servertest.Decode[api.PutResponse](t, r); r.Status != http.StatusOK || len(res.Skipped) != 1 || res.Skipped[0].Reason != api.SkipInvalidContent {
		t.Errorf("NUL content = %d %s; want a.md skipped as invalid_content", r.Status, r.Body)
	}
}

func TestRepoCredentialsNeverEchoed(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	const secret = "ghp_notARealTokenButSecretAnyway"
	r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=https://ana:"+secret+"@github.com/acme//api", ts.Admin, nil)
	if r.Status != http.StatusBadRequest || strings.Contains(string(r.Body), secret) {
		t.Errorf("invalid URL-shaped repo: %d %s", r.Status, r.Body)
	}
	// A URL-shaped repo that canonicalises works and names the canonical slug.
	ts.Put("https://ana:"+secret+"@github.com/acme/api.git", map[string]string{"a.md": "a"}, nil, http.StatusOK)
	if tm := servertest.Decode[api.TeamMemory](t, ts.Get("repo=acme/api", http.StatusOK)); tm.Repo != "acme/api" {
		t.Errorf("repo = %q", tm.Repo)
	}
}

func TestNoOpPutOnNewRepo(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	// openapi validation inside put checks lastModified's format.
	res := servertest.Decode[api.PutResponse](t, ts.Put("acme/new", nil, nil, http.StatusOK))
	if res.Version != 0 || !lastModifiedRE.MatchString(res.LastModified) {
		t.Errorf("no-op PUT on a new repo = %+v", res)
	}
	ts.Get("repo=acme/new", http.StatusNotFound)
}

func TestInventedMethodsShareOneLabel(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	for _, m := range []string{"FOO", "BAR", "BAZ"} {
		ts.Send(false, m, api.PathHealthz, "", nil)
	}
	body := string(ts.Do(http.MethodGet, api.PathMetrics, "", nil).Body)
	if strings.Contains(body, `method="FOO"`) || !strings.Contains(body, `method="other"`) {
		t.Error("invented methods became metric labels")
	}
}

// TestPreconditionBeforeContent checks that a stale If-Match is answered 412
// before the body is read (RFC 9110 §13.2.1), and that the store's atomic
// check still decides when the early check passes.
func TestPreconditionBeforeContent(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	cur := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK))
	// The request is malformed on purpose: only the servertest.Response is checked against openapi.yaml below.
	r := ts.Send(false, http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.Admin, []byte(`not json`), "If-Match", `"sha256:stale"`)
	if r.Status != http.StatusPreconditionFailed || r.ErrorBody(t).Details["checksum"] != cur.Checksum {
		t.Errorf("stale If-Match with a bad body = %d %s", r.Status, r.Body)
	}
	r = ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.Admin, []byte(`not json`), "If-Match", `"`+cur.Checksum+`"`)
	if r.Status != http.StatusBadRequest {
		t.Errorf("current If-Match with a bad body = %d, want 400", r.Status)
	}
	stranger := ts.Token("eve", "other/*:write")
	if r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", stranger, []byte(`{}`), "If-Match", `"sha256:stale"`); r.Status != http.StatusForbidden {
		t.Errorf("stale If-Match without a grant = %d, want 403", r.Status)
	}
}

func TestMarkdownNotHTMLEscaped(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "<b>R&D</b> -> ok"}, nil, http.StatusOK)
	r := ts.Get("repo=acme/api", http.StatusOK)
	if !strings.Contains(string(r.Body), `<b>R&D</b> -> ok`) {
		t.Errorf("content escaped: %s", r.Body)
	}
}
