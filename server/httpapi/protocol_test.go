package httpapi_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/protocol"
)

var lastModifiedRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func TestPullPushRoundTrip(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	nf := ts.get("repo=acme/api", http.StatusNotFound)
	if e := nf.errorBody(t); e.Type != api.TypeNotFound {
		t.Errorf("404 type = %q", e.Type)
	}

	entries := map[string]string{"MEMORY.md": "# Index\n- [DB](db.md)\n", "decisions/db.md": "We use Postgres.\n", "决策记录.md": "中文\n"}
	put := decode[api.PutResponse](t, ts.put("acme/api", entries, nil, http.StatusOK))
	sums := map[string]string{}
	for k, v := range entries {
		sums[k] = protocol.EntryChecksum([]byte(v))
	}
	wantSum := protocol.DatasetChecksum(sums)
	if put.Checksum != wantSum || put.Version != 1 || !lastModifiedRE.MatchString(put.LastModified) {
		t.Fatalf("PUT response = %+v, want checksum %s version 1", put, wantSum)
	}
	if diff := cmp.Diff([]string{"MEMORY.md", "decisions/db.md", "决策记录.md"}, put.Changed); diff != "" {
		t.Errorf("changed (-want +got):\n%s", diff)
	}

	r := ts.get("repo=acme/api", http.StatusOK)
	if r.header.Get("ETag") != `"`+wantSum+`"` {
		t.Errorf("ETag = %q", r.header.Get("ETag"))
	}
	got := decode[api.TeamMemory](t, r)
	want := api.TeamMemory{OrganizationID: "acme-org", Repo: "acme/api", Version: 1, LastModified: got.LastModified, Checksum: wantSum,
		Content: api.Content{Entries: entries, EntryChecksums: sums, DeletedEntries: map[string]int64{}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pull (-want +got):\n%s", diff)
	}

	// Identical content is not a change.
	again := decode[api.PutResponse](t, ts.put("acme/api", map[string]string{"MEMORY.md": entries["MEMORY.md"]}, nil, http.StatusOK))
	if again.Version != 1 || len(again.Changed) != 0 || again.Checksum != wantSum {
		t.Errorf("no-op PUT = %+v", again)
	}
}

func TestConditionalGet(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	put := decode[api.PutResponse](t, ts.put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK))
	for _, inm := range []string{`"` + put.Checksum + `"`, `W/"` + put.Checksum + `"`, `"x", "` + put.Checksum + `"`, `*`} {
		r := ts.get("repo=acme/api", http.StatusNotModified, "If-None-Match", inm)
		if len(r.body) != 0 || r.header.Get("ETag") != `"`+put.Checksum+`"` {
			t.Errorf("If-None-Match %s: body %q, ETag %q", inm, r.body, r.header.Get("ETag"))
		}
	}
	ts.get("repo=acme/api", http.StatusOK, "If-None-Match", `"sha256:0000"`)
	ts.get("repo=acme/nothing", http.StatusNotFound, "If-None-Match", `"sha256:0000"`)
}

func TestHashesView(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	ts.get("repo=acme/api&view=hashes", http.StatusNotFound)
	ts.put("acme/api", map[string]string{"a.md": "a", "b.md": "b"}, nil, http.StatusOK)
	ts.put("acme/api", nil, []string{"b.md"}, http.StatusOK)
	h := decode[api.Hashes](t, ts.get("repo=acme/api&view=hashes", http.StatusOK))
	if h.Version != 2 || len(h.EntryChecksums) != 1 || h.EntryChecksums["a.md"] != protocol.EntryChecksum([]byte("a")) {
		t.Errorf("hashes = %+v", h)
	}
	if _, ok := h.DeletedEntries["b.md"]; !ok {
		t.Errorf("b.md not in deletedEntries: %+v", h)
	}
	ts.get("repo=acme/api&view=full", http.StatusBadRequest)
}

func TestTombstonesAndSince(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	before := time.Now().Add(-time.Second).UnixMilli()
	ts.put("acme/api", map[string]string{"a.md": "a", "b.md": "b", "c.md": "c"}, nil, http.StatusOK) // v1
	del := decode[api.PutResponse](t, ts.put("acme/api", nil, []string{"b.md", "never.md"}, http.StatusOK))
	if del.Version != 2 || !cmp.Equal(del.Deleted, []string{"b.md"}) {
		t.Fatalf("delete = %+v", del)
	}
	ts.put("acme/api", map[string]string{"c.md": "c2"}, nil, http.StatusOK) // v3

	full := decode[api.TeamMemory](t, ts.get("repo=acme/api", http.StatusOK))
	if _, live := full.Content.Entries["b.md"]; live {
		t.Error("deleted key still live")
	}
	if at := full.Content.DeletedEntries["b.md"]; at < before || at > time.Now().Add(time.Second).UnixMilli() {
		t.Errorf("deletedEntries[b.md] = %d, want a Unix-ms time of now", at)
	}

	since := decode[api.TeamMemory](t, ts.get("repo=acme/api&since=1", http.StatusOK))
	if !cmp.Equal(since.Content.Entries, map[string]string{"c.md": "c2"}) || len(since.Content.DeletedEntries) != 1 || since.Version != 3 || since.Checksum != full.Checksum {
		t.Errorf("since=1 = %+v", since)
	}
	none := decode[api.TeamMemory](t, ts.get("repo=acme/api&since=3", http.StatusOK))
	if len(none.Content.Entries)+len(none.Content.DeletedEntries) != 0 {
		t.Errorf("since=3 = %+v", none)
	}
	ts.get("repo=acme/api&since=-1", http.StatusBadRequest)
	ts.get("repo=acme/api&since=x", http.StatusBadRequest)

	// Re-putting a deleted key resurrects it.
	ts.put("acme/api", map[string]string{"b.md": "back"}, nil, http.StatusOK)
	h := decode[api.Hashes](t, ts.get("repo=acme/api&view=hashes", http.StatusOK))
	if _, dead := h.DeletedEntries["b.md"]; dead || h.EntryChecksums["b.md"] == "" {
		t.Errorf("resurrected key: %+v", h)
	}
}

func TestIfMatch(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	r := ts.put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusPreconditionFailed, "If-Match", `"sha256:abc"`)
	if e := r.errorBody(t); e.Type != api.TypeConflict || e.Code() != api.CodeETagMismatch {
		t.Errorf("412 on never-written repo: %s", r.body)
	}
	first := decode[api.PutResponse](t, ts.put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK))
	ok := decode[api.PutResponse](t, ts.put("acme/api", map[string]string{"b.md": "b"}, nil, http.StatusOK, "If-Match", `"`+first.Checksum+`"`))
	stale := ts.put("acme/api", map[string]string{"c.md": "c", "a.md": "changed"}, nil, http.StatusPreconditionFailed, "If-Match", `"`+first.Checksum+`"`)
	if e := stale.errorBody(t); e.Details["checksum"] != ok.Checksum {
		t.Errorf("412 details = %v, want checksum %s", e.Details, ok.Checksum)
	}
	h := decode[api.Hashes](t, ts.get("repo=acme/api&view=hashes", http.StatusOK))
	if _, written := h.EntryChecksums["c.md"]; written || h.Version != 2 {
		t.Errorf("a refused conditional PUT wrote something: %+v", h)
	}
	ts.put("acme/api", map[string]string{"d.md": "d"}, nil, http.StatusOK, "If-Match", "*")
}

// TestIfNoneMatchStar: a PUT with If-None-Match: * creates a repo that
// never held data and is refused with the current checksum once it has,
// also after everything in it was deleted; nothing is written then.
func TestIfNoneMatchStar(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	alice := decode[api.PutResponse](t, ts.put("acme/api", map[string]string{"MEMORY.md": "Alice\n"}, nil, http.StatusOK, "If-None-Match", "*"))
	bob := ts.put("acme/api", map[string]string{"MEMORY.md": "Bob\n"}, nil, http.StatusPreconditionFailed, "If-None-Match", "*")
	if e := bob.errorBody(t); e.Code() != api.CodeETagMismatch || e.Details["checksum"] != alice.Checksum {
		t.Errorf("second create-only PUT: %s, want 412 with checksum %s", bob.body, alice.Checksum)
	}
	gone := decode[api.PutResponse](t, ts.put("acme/api", nil, []string{"MEMORY.md"}, http.StatusOK, "If-Match", alice.Checksum))
	again := ts.put("acme/api", map[string]string{"MEMORY.md": "Bob\n"}, nil, http.StatusPreconditionFailed, "If-None-Match", `*`)
	if e := again.errorBody(t); e.Details["checksum"] != gone.Checksum {
		t.Errorf("create-only PUT on an emptied repo: %s", again.body)
	}
	h := decode[api.Hashes](t, ts.get("repo=acme/api&view=hashes", http.StatusOK))
	if len(h.EntryChecksums) != 0 || h.Version != 2 {
		t.Errorf("a refused create-only PUT wrote something: %+v", h)
	}
}

func TestLimits(t *testing.T) {
	ts := newTestServer(t, serverOpts{limits: serverLimits(3, 100, 4096, 250)})
	r := ts.put("acme/api", map[string]string{"a.md": "a", "b.md": "b", "c.md": "c", "d.md": "d"}, nil, http.StatusRequestEntityTooLarge)
	want := `{"error":{"type":"invalid_request_error","message":`
	if !strings.HasPrefix(string(r.body), want) {
		t.Errorf("413 body = %s", r.body)
	}
	e := r.errorBody(t)
	if e.Code() != api.CodeTooManyEntries || e.Details["max_entries"] != float64(3) || e.Details["received_entries"] != float64(4) {
		t.Errorf("413 details = %v", e.Details)
	}
	ts.put("acme/api", map[string]string{"a.md": "a", "b.md": "b"}, nil, http.StatusOK)
	// Deletes count: 2 live - 1 + 2 new = 3 fits.
	ts.put("acme/api", map[string]string{"c.md": "c", "d.md": "d"}, []string{"a.md"}, http.StatusOK)

	big := decode[api.PutResponse](t, ts.put("acme/api", map[string]string{"big.md": strings.Repeat("x", 101)}, nil, http.StatusOK))
	if len(big.Skipped) != 1 || big.Skipped[0].Reason != api.SkipEntryTooLarge || len(big.Changed) != 0 {
		t.Errorf("entry too large: %+v", big)
	}
	body := `{"entries":{"x.md":"` + strings.Repeat("y", 5000) + `"}}`
	r = ts.do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.admin, []byte(body))
	if d := codeless413(t, r); d["reason"] != api.ReasonRequestTooLarge || d["max_bytes"] != float64(4096) {
		t.Errorf("request too large: %d %s", r.status, r.body)
	}
	repoBytes := ts.put("acme/api", map[string]string{"b.md": strings.Repeat("z", 100), "c.md": strings.Repeat("z", 100), "d.md": strings.Repeat("z", 100)}, nil, http.StatusRequestEntityTooLarge)
	if d := codeless413(t, repoBytes); d["reason"] != api.ReasonRepoTooLarge || d["max_bytes"] != float64(250) || d["bytes"] != float64(300) {
		t.Errorf("repo too large: %s", repoBytes.body)
	}
}

// codeless413 checks that r is a 413 whose details carry no error_code (the
// stock client clears its stop after a delete only for those) and returns
// the details.
func codeless413(t *testing.T, r response) map[string]any {
	t.Helper()
	var env api.ErrorEnvelope
	if err := json.Unmarshal(r.body, &env); err != nil || r.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, body %s", r.status, r.body)
	}
	if _, ok := env.Error.Details["error_code"]; ok || env.Error.Type != api.TypeInvalidRequest || env.Error.Message == "" {
		t.Fatalf("413 is not code-less: %s", r.body)
	}
	return env.Error.Details
}

func TestRepoCanonicalAndAlias(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	ts.put("Acme/API.git", map[string]string{"a.md": "a"}, nil, http.StatusOK)
	for _, q := range []string{"repo=acme/api", "repo=acme%2Fapi", "repo=ACME%2fApi.git", "repo=/acme/api/"} {
		tm := decode[api.TeamMemory](t, ts.get(q, http.StatusOK))
		if tm.Repo != "acme/api" {
			t.Errorf("%s: repo = %q", q, tm.Repo)
		}
	}
	r := ts.do(http.MethodGet, api.PathTeamMemoryAlias+"?repo=acme/api", ts.admin, nil)
	if r.status != http.StatusOK {
		t.Errorf("alias GET = %d", r.status)
	}
	r = ts.do(http.MethodPut, api.PathTeamMemoryAlias+"?repo=acme/api", ts.admin, []byte(`{"entries":{"b.md":"b"}}`))
	if r.status != http.StatusOK {
		t.Errorf("alias PUT = %d %s", r.status, r.body)
	}
}

func TestHistoryRevisionRepos(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	ts.put("acme/api", map[string]string{"a.md": "one"}, nil, http.StatusOK)
	ts.put("acme/api", map[string]string{"a.md": "two"}, nil, http.StatusOK)
	ts.put("acme/api", nil, []string{"a.md"}, http.StatusOK)
	ts.put("other/web", map[string]string{"x.md": "x"}, nil, http.StatusOK)

	h := decode[api.History](t, ts.do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=a.md", ts.admin, nil))
	var ops []string
	for _, r := range h.Revisions {
		ops = append(ops, r.Op)
		if r.Author != "admin" || !lastModifiedRE.MatchString(r.At) {
			t.Errorf("revision %+v", r)
		}
	}
	if !cmp.Equal(ops, []string{"delete", "put", "put"}) || h.Revisions[0].Version != 3 {
		t.Errorf("history = %+v", h)
	}
	lim := decode[api.History](t, ts.do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=a.md&limit=1&before=3", ts.admin, nil))
	if len(lim.Revisions) != 1 || lim.Revisions[0].Version != 2 {
		t.Errorf("history limit/before = %+v", lim)
	}
	if r := ts.do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=never.md", ts.admin, nil); r.status != http.StatusNotFound {
		t.Errorf("history of unknown key = %d", r.status)
	}
	rv := decode[api.RevisionContent](t, ts.do(http.MethodGet, api.PathRevision+"?repo=acme/api&key=a.md&version=1", ts.admin, nil))
	if rv.Content != "one" || rv.Op != "put" || rv.Checksum != protocol.EntryChecksum([]byte("one")) {
		t.Errorf("revision = %+v", rv)
	}
	if r := ts.do(http.MethodGet, api.PathRevision+"?repo=acme/api&key=a.md&version=9", ts.admin, nil); r.status != http.StatusNotFound {
		t.Errorf("missing revision = %d", r.status)
	}

	reader := ts.token("ana", "acme/*:read")
	repos := decode[api.RepoList](t, ts.do(http.MethodGet, api.PathRepos, reader, nil))
	if len(repos.Repos) != 1 || repos.Repos[0].Repo != "acme/api" || repos.Repos[0].Version != 3 {
		t.Errorf("repos for acme/*:read = %+v", repos)
	}
	all := decode[api.RepoList](t, ts.do(http.MethodGet, api.PathRepos, ts.admin, nil))
	if len(all.Repos) != 2 {
		t.Errorf("repos for admin = %+v", all)
	}
}

// TestHistoryPaging checks the limit and before of a history request: a
// limit over the maximum means the maximum (not the default page of 100),
// and a bad one is a 400.
func TestHistoryPaging(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	for i := range 102 {
		ts.put("acme/api", map[string]string{"a.md": strconv.Itoa(i)}, nil, http.StatusOK)
	}
	huge := decode[api.History](t, ts.do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=a.md&limit=99999999999", ts.admin, nil))
	if len(huge.Revisions) != 102 || huge.Repo != "acme/api" {
		t.Errorf("a limit over the maximum gave %d revisions of %q; want all 102 of acme/api", len(huge.Revisions), huge.Repo)
	}
	if def := decode[api.History](t, ts.do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=a.md", ts.admin, nil)); len(def.Revisions) != 100 {
		t.Errorf("no limit gave %d revisions; want the default 100", len(def.Revisions))
	}
	for _, q := range []string{"limit=ten", "limit=-1", "before=x", "before=-2"} {
		r := ts.do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=a.md&"+q, ts.admin, nil)
		if r.status != http.StatusBadRequest {
			t.Errorf("history?%s = %d %s; want 400", q, r.status, r.body)
		}
		r.errorBody(t)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	for _, p := range []string{api.PathHealthz, api.PathReadyz} {
		if r := ts.do(http.MethodGet, p, "", nil); r.status != http.StatusOK {
			t.Errorf("%s = %d", p, r.status)
		}
	}
	ts.put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK)
	ts.put("acme/api", map[string]string{"a.md": "b"}, nil, http.StatusPreconditionFailed, "If-Match", `"sha256:0"`)
	r := ts.do(http.MethodGet, api.PathMetrics, "", nil)
	for _, m := range []string{"teammem_http_request_duration_seconds_bucket", "teammem_store_operation_duration_seconds", "teammem_precondition_failures_total 1",
		"teammem_entries_written_total 1", "teammem_bytes_written_total 1", "teammem_auth_failures_total", "teammem_rate_limited_total"} {
		if !strings.Contains(string(r.body), m) {
			t.Errorf("metrics lack %q", m)
		}
	}
	if strings.Contains(string(r.body), ts.admin) {
		t.Error("a token appears in the metrics")
	}
}

func TestRequestID(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	r := ts.get("repo=acme/none", http.StatusNotFound, "X-Request-ID", "abc-123")
	if r.header.Get("X-Request-ID") != "abc-123" || r.errorBody(t).Details["request_id"] != "abc-123" {
		t.Errorf("request id not echoed: %v %s", r.header, r.body)
	}
	r = ts.get("repo=acme/none", http.StatusNotFound, "X-Request-ID", "bad id\twith spaces")
	if id := r.header.Get("X-Request-ID"); id == "" || strings.Contains(id, " ") {
		t.Errorf("generated id = %q", id)
	}
}

// TestCachedBodiesFollowWrites reads each view, writes, and reads again:
// a cached body must never outlive the version it was encoded at.
func TestCachedBodiesFollowWrites(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	for i := 0; i < 5; i++ {
		content := strings.Repeat("v", i+1)
		ts.put("acme/api", map[string]string{"a.md": content}, nil, http.StatusOK)
		for j := 0; j < 2; j++ { // the second read is served from the cache
			full := decode[api.TeamMemory](t, ts.get("repo=acme/api", http.StatusOK))
			h := decode[api.Hashes](t, ts.get("repo=acme/api&view=hashes", http.StatusOK))
			if full.Content.Entries["a.md"] != content || full.Version != int64(i+1) || h.Version != int64(i+1) ||
				h.EntryChecksums["a.md"] != protocol.EntryChecksum([]byte(content)) {
				t.Fatalf("round %d read %d: stale body: %+v %+v", i, j, full, h)
			}
		}
	}
	// A reader without a grant never gets a cached body.
	stranger := ts.token("eve", "other/*:read")
	if r := ts.do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", stranger, nil); r.status != http.StatusForbidden {
		t.Errorf("stranger = %d", r.status)
	}
}
