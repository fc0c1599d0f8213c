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
	"github.com/teammem/teammem/testkit/servertest"
)

var lastModifiedRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func TestPullPushRoundTrip(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	nf := ts.Get("repo=acme/api", http.StatusNotFound)
	if e := nf.ErrorBody(t); e.Type != api.TypeNotFound {
		t.Errorf("404 type = %q", e.Type)
	}

	entries := map[string]string{"MEMORY.md": "# Index\n- [DB](db.md)\n", "decisions/db.md": "We use Postgres.\n", "决策记录.md": "中文\n"}
	put := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", entries, nil, http.StatusOK))
	sums := map[string]string{}
	for k, v := range entries {
		sums[k] = protocol.EntryChecksum([]byte(v))
	}
	wantSum := protocol.DatasetChecksum(sums)
	if put.Checksum != wantSum || put.Version != 1 || !lastModifiedRE.MatchString(put.LastModified) {
		t.Fatalf("PUT servertest.Response = %+v, want checksum %s version 1", put, wantSum)
	}
	if diff := cmp.Diff([]string{"MEMORY.md", "decisions/db.md", "决策记录.md"}, put.Changed); diff != "" {
		t.Errorf("changed (-want +got):\n%s", diff)
	}

	r := ts.Get("repo=acme/api", http.StatusOK)
	if r.Header.Get("ETag") != `"`+wantSum+`"` {
		t.Errorf("ETag = %q", r.Header.Get("ETag"))
	}
	got := servertest.Decode[api.TeamMemory](t, r)
	want := api.TeamMemory{OrganizationID: "acme-org", Repo: "acme/api", Version: 1, LastModified: got.LastModified, Checksum: wantSum,
		Content: api.Content{Entries: entries, EntryChecksums: sums, DeletedEntries: map[string]int64{}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pull (-want +got):\n%s", diff)
	}

	// Identical content is not a change.
	again := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", map[string]string{"MEMORY.md": entries["MEMORY.md"]}, nil, http.StatusOK))
	if again.Version != 1 || len(again.Changed) != 0 || again.Checksum != wantSum {
		t.Errorf("no-op PUT = %+v", again)
	}
}

func TestConditionalGet(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	put := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK))
	for _, inm := range []string{`"` + put.Checksum + `"`, `W/"` + put.Checksum + `"`, `"x", "` + put.Checksum + `"`, `*`} {
		r := ts.Get("repo=acme/api", http.StatusNotModified, "If-None-Match", inm)
		if len(r.Body) != 0 || r.Header.Get("ETag") != `"`+put.Checksum+`"` {
			t.Errorf("If-None-Match %s: body %q, ETag %q", inm, r.Body, r.Header.Get("ETag"))
		}
	}
	ts.Get("repo=acme/api", http.StatusOK, "If-None-Match", `"sha256:0000"`)
	ts.Get("repo=acme/nothing", http.StatusNotFound, "If-None-Match", `"sha256:0000"`)
}

func TestHashesView(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Get("repo=acme/api&view=hashes", http.StatusNotFound)
	ts.Put("acme/api", map[string]string{"a.md": "a", "b.md": "b"}, nil, http.StatusOK)
	ts.Put("acme/api", nil, []string{"b.md"}, http.StatusOK)
	h := servertest.Decode[api.Hashes](t, ts.Get("repo=acme/api&view=hashes", http.StatusOK))
	if h.Version != 2 || len(h.EntryChecksums) != 1 || h.EntryChecksums["a.md"] != protocol.EntryChecksum([]byte("a")) {
		t.Errorf("hashes = %+v", h)
	}
	if _, ok := h.DeletedEntries["b.md"]; !ok {
		t.Errorf("b.md not in deletedEntries: %+v", h)
	}
	ts.Get("repo=acme/api&view=full", http.StatusBadRequest)
}

func TestTombstonesAndSince(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	before := time.Now().Add(-time.Second).UnixMilli()
	ts.Put("acme/api", map[string]string{"a.md": "a", "b.md": "b", "c.md": "c"}, nil, http.StatusOK) // v1
	del := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", nil, []string{"b.md", "never.md"}, http.StatusOK))
	if del.Version != 2 || !cmp.Equal(del.Deleted, []string{"b.md"}) {
		t.Fatalf("delete = %+v", del)
	}
	ts.Put("acme/api", map[string]string{"c.md": "c2"}, nil, http.StatusOK) // v3

	full := servertest.Decode[api.TeamMemory](t, ts.Get("repo=acme/api", http.StatusOK))
	if _, live := full.Content.Entries["b.md"]; live {
		t.Error("deleted key still live")
	}
	if at := full.Content.DeletedEntries["b.md"]; at < before || at > time.Now().Add(time.Second).UnixMilli() {
		t.Errorf("deletedEntries[b.md] = %d, want a Unix-ms time of now", at)
	}

	since := servertest.Decode[api.TeamMemory](t, ts.Get("repo=acme/api&since=1", http.StatusOK))
	if !cmp.Equal(since.Content.Entries, map[string]string{"c.md": "c2"}) || len(since.Content.DeletedEntries) != 1 || since.Version != 3 || since.Checksum != full.Checksum {
		t.Errorf("since=1 = %+v", since)
	}
	none := servertest.Decode[api.TeamMemory](t, ts.Get("repo=acme/api&since=3", http.StatusOK))
	if len(none.Content.Entries)+len(none.Content.DeletedEntries) != 0 {
		t.Errorf("since=3 = %+v", none)
	}
	ts.Get("repo=acme/api&since=-1", http.StatusBadRequest)
	ts.Get("repo=acme/api&since=x", http.StatusBadRequest)

	// Re-putting a deleted key resurrects it.
	ts.Put("acme/api", map[string]string{"b.md": "back"}, nil, http.StatusOK)
	h := servertest.Decode[api.Hashes](t, ts.Get("repo=acme/api&view=hashes", http.StatusOK))
	if _, dead := h.DeletedEntries["b.md"]; dead || h.EntryChecksums["b.md"] == "" {
		t.Errorf("resurrected key: %+v", h)
	}
}

func TestIfMatch(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	r := ts.Put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusPreconditionFailed, "If-Match", `"sha256:abc"`)
	if e := r.ErrorBody(t); e.Type != api.TypeConflict || e.Code() != api.CodeETagMismatch {
		t.Errorf("412 on never-written repo: %s", r.Body)
	}
	first := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK))
	ok := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", map[string]string{"b.md": "b"}, nil, http.StatusOK, "If-Match", `"`+first.Checksum+`"`))
	stale := ts.Put("acme/api", map[string]string{"c.md": "c", "a.md": "changed"}, nil, http.StatusPreconditionFailed, "If-Match", `"`+first.Checksum+`"`)
	if e := stale.ErrorBody(t); e.Details["checksum"] != ok.Checksum {
		t.Errorf("412 details = %v, want checksum %s", e.Details, ok.Checksum)
	}
	h := servertest.Decode[api.Hashes](t, ts.Get("repo=acme/api&view=hashes", http.StatusOK))
	if _, written := h.EntryChecksums["c.md"]; written || h.Version != 2 {
		t.Errorf("a refused conditional PUT wrote something: %+v", h)
	}
	ts.Put("acme/api", map[string]string{"d.md": "d"}, nil, http.StatusOK, "If-Match", "*")
}

// TestIfNoneMatchStar: a PUT with If-None-Match: * creates a repo that
// never held data and is refused with the current checksum once it has,
// also after everything in it was deleted; nothing is written then.
func TestIfNoneMatchStar(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	alice := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", map[string]string{"MEMORY.md": "Alice\n"}, nil, http.StatusOK, "If-None-Match", "*"))
	bob := ts.Put("acme/api", map[string]string{"MEMORY.md": "Bob\n"}, nil, http.StatusPreconditionFailed, "If-None-Match", "*")
	if e := bob.ErrorBody(t); e.Code() != api.CodeETagMismatch || e.Details["checksum"] != alice.Checksum {
		t.Errorf("second create-only PUT: %s, want 412 with checksum %s", bob.Body, alice.Checksum)
	}
	gone := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", nil, []string{"MEMORY.md"}, http.StatusOK, "If-Match", alice.Checksum))
	again := ts.Put("acme/api", map[string]string{"MEMORY.md": "Bob\n"}, nil, http.StatusPreconditionFailed, "If-None-Match", `*`)
	if e := again.ErrorBody(t); e.Details["checksum"] != gone.Checksum {
		t.Errorf("create-only PUT on an emptied repo: %s", again.Body)
	}
	h := servertest.Decode[api.Hashes](t, ts.Get("repo=acme/api&view=hashes", http.StatusOK))
	if len(h.EntryChecksums) != 0 || h.Version != 2 {
		t.Errorf("a refused create-only PUT wrote something: %+v", h)
	}
}

func TestLimits(t *testing.T) {
	ts := newTestServer(t, servertest.Options{Limits: serverLimits(3, 100, 4096, 250)})
	r := ts.Put("acme/api", map[string]string{"a.md": "a", "b.md": "b", "c.md": "c", "d.md": "d"}, nil, http.StatusRequestEntityTooLarge)
	want := `{"error":{"type":"invalid_request_error","message":`
	if !strings.HasPrefix(string(r.Body), want) {
		t.Errorf("413 body = %s", r.Body)
	}
	e := r.ErrorBody(t)
	if e.Code() != api.CodeTooManyEntries || e.Details["max_entries"] != float64(3) || e.Details["received_entries"] != float64(4) {
		t.Errorf("413 details = %v", e.Details)
	}
	ts.Put("acme/api", map[string]string{"a.md": "a", "b.md": "b"}, nil, http.StatusOK)
	// Deletes count: 2 live - 1 + 2 new = 3 fits.
	ts.Put("acme/api", map[string]string{"c.md": "c", "d.md": "d"}, []string{"a.md"}, http.StatusOK)

	big := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", map[string]string{"big.md": strings.Repeat("x", 101)}, nil, http.StatusOK))
	if len(big.Skipped) != 1 || big.Skipped[0].Reason != api.SkipEntryTooLarge || len(big.Changed) != 0 {
		t.Errorf("entry too large: %+v", big)
	}
	body := `{"entries":{"x.md":"` + strings.Repeat("y", 5000) + `"}}`
	r = ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.Admin, []byte(body))
	if d := codeless413(t, r); d["reason"] != api.ReasonRequestTooLarge || d["max_bytes"] != float64(4096) {
		t.Errorf("request too large: %d %s", r.Status, r.Body)
	}
	repoBytes := ts.Put("acme/api", map[string]string{"b.md": strings.Repeat("z", 100), "c.md": strings.Repeat("z", 100), "d.md": strings.Repeat("z", 100)}, nil, http.StatusRequestEntityTooLarge)
	if d := codeless413(t, repoBytes); d["reason"] != api.ReasonRepoTooLarge || d["max_bytes"] != float64(250) || d["bytes"] != float64(300) {
		t.Errorf("repo too large: %s", repoBytes.Body)
	}
}

// codeless413 checks that r is a 413 whose details carry no error_code (the
// stock client clears its stop after a delete only for those) and returns
// the details.
func codeless413(t *testing.T, r servertest.Response) map[string]any {
	t.Helper()
	var env api.ErrorEnvelope
	if err := json.Unmarshal(r.Body, &env); err != nil || r.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, body %s", r.Status, r.Body)
	}
	if _, ok := env.Error.Details["error_code"]; ok || env.Error.Type != api.TypeInvalidRequest || env.Error.Message == "" {
		t.Fatalf("413 is not code-less: %s", r.Body)
	}
	return env.Error.Details
}

func TestRepoCanonicalAndAlias(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("Acme/API.git", map[string]string{"a.md": "a"}, nil, http.StatusOK)
	for _, q := range []string{"repo=acme/api", "repo=acme%2Fapi", "repo=ACME%2fApi.git", "repo=/acme/api/"} {
		tm := servertest.Decode[api.TeamMemory](t, ts.Get(q, http.StatusOK))
		if tm.Repo != "acme/api" {
			t.Errorf("%s: repo = %q", q, tm.Repo)
		}
	}
	r := ts.Do(http.MethodGet, api.PathTeamMemoryAlias+"?repo=acme/api", ts.Admin, nil)
	if r.Status != http.StatusOK {
		t.Errorf("alias GET = %d", r.Status)
	}
	r = ts.Do(http.MethodPut, api.PathTeamMemoryAlias+"?repo=acme/api", ts.Admin, []byte(`{"entries":{"b.md":"b"}}`))
	if r.Status != http.StatusOK {
		t.Errorf("alias PUT = %d %s", r.Status, r.Body)
	}
}

func TestHistoryRevisionRepos(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "one"}, nil, http.StatusOK)
	ts.Put("acme/api", map[string]string{"a.md": "two"}, nil, http.StatusOK)
	ts.Put("acme/api", nil, []string{"a.md"}, http.StatusOK)
	ts.Put("other/web", map[string]string{"x.md": "x"}, nil, http.StatusOK)

	h := servertest.Decode[api.History](t, ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=a.md", ts.Admin, nil))
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
	lim := servertest.Decode[api.History](t, ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=a.md&limit=1&before=3", ts.Admin, nil))
	if len(lim.Revisions) != 1 || lim.Revisions[0].Version != 2 {
		t.Errorf("history limit/before = %+v", lim)
	}
	if r := ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=never.md", ts.Admin, nil); r.Status != http.StatusNotFound {
		t.Errorf("history of unknown key = %d", r.Status)
	}
	rv := servertest.Decode[api.RevisionContent](t, ts.Do(http.MethodGet, api.PathRevision+"?repo=acme/api&key=a.md&version=1", ts.Admin, nil))
	if rv.Content != "one" || rv.Op != "put" || rv.Checksum != protocol.EntryChecksum([]byte("one")) {
		t.Errorf("revision = %+v", rv)
	}
	if r := ts.Do(http.MethodGet, api.PathRevision+"?repo=acme/api&key=a.md&version=9", ts.Admin, nil); r.Status != http.StatusNotFound {
		t.Errorf("missing revision = %d", r.Status)
	}
	// Without a version: the newest revision, here the delete.
	newest := servertest.Decode[api.RevisionContent](t, ts.Do(http.MethodGet, api.PathRevision+"?repo=acme/api&key=a.md", ts.Admin, nil))
	if newest.Version != 3 || newest.Op != "delete" || newest.Content != "" {
		t.Errorf("newest revision = %+v", newest)
	}
	for target, want := range map[string]int{
		"?repo=acme/api&key=never.md":          http.StatusNotFound,
		"?repo=acme/api&key=a.md&version=-1":   http.StatusBadRequest,
		"?repo=acme/api&key=a.md&version=0x1":  http.StatusBadRequest,
		"?repo=acme/api&key=../a.md&version=1": http.StatusBadRequest,
	} {
		if r := ts.Do(http.MethodGet, api.PathRevision+target, ts.Admin, nil); r.Status != want {
			t.Errorf("GET revision%s = %d, want %d", target, r.Status, want)
		}
	}

	reader := ts.Token("ana", "acme/*:read")
	repos := servertest.Decode[api.RepoList](t, ts.Do(http.MethodGet, api.PathRepos, reader, nil))
	if len(repos.Repos) != 1 || repos.Repos[0].Repo != "acme/api" || repos.Repos[0].Version != 3 {
		t.Errorf("repos for acme/*:read = %+v", repos)
	}
	all := servertest.Decode[api.RepoList](t, ts.Do(http.MethodGet, api.PathRepos, ts.Admin, nil))
	if len(all.Repos) != 2 {
		t.Errorf("repos for admin = %+v", all)
	}
}

// TestHistoryPaging checks the limit and before of a history request: a
// limit over the maximum means the maximum (not the default page of 100),
// and a bad one is a 400.
func TestHistoryPaging(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	for i := range 102 {
		ts.Put("acme/api", map[string]string{"a.md": strconv.Itoa(i)}, nil, http.StatusOK)
	}
	huge := servertest.Decode[api.History](t, ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=a.md&limit=99999999999", ts.Admin, nil))
	if len(huge.Revisions) != 102 || huge.Repo != "acme/api" {
		t.Errorf("a limit over the maximum gave %d revisions of %q; want all 102 of acme/api", len(huge.Revisions), huge.Repo)
	}
	if def := servertest.Decode[api.History](t, ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=a.md", ts.Admin, nil)); len(def.Revisions) != 100 {
		t.Errorf("no limit gave %d revisions; want the default 100", len(def.Revisions))
	}
	for _, q := range []string{"limit=ten", "limit=-1", "before=x", "before=-2"} {
		r := ts.Do(http.MethodGet, api.PathHistory+"?repo=acme/api&key=a.md&"+q, ts.Admin, nil)
		if r.Status != http.StatusBadRequest {
			t.Errorf("history?%s = %d %s; want 400", q, r.Status, r.Body)
		}
		r.ErrorBody(t)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	for _, p := range []string{api.PathHealthz, api.PathReadyz} {
		if r := ts.Do(http.MethodGet, p, "", nil); r.Status != http.StatusOK {
			t.Errorf("%s = %d", p, r.Status)
		}
	}
	ts.Put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK)
	ts.Put("acme/api", map[string]string{"a.md": "b"}, nil, http.StatusPreconditionFailed, "If-Match", `"sha256:0"`)
	r := ts.Do(http.MethodGet, api.PathMetrics, "", nil)
	for _, m := range []string{"teammem_http_request_duration_seconds_bucket", "teammem_store_operation_duration_seconds", "teammem_precondition_failures_total 1",
		"teammem_entries_written_total 1", "teammem_bytes_written_total 1", "teammem_auth_failures_total", "teammem_rate_limited_total"} {
		if !strings.Contains(string(r.Body), m) {
			t.Errorf("metrics lack %q", m)
		}
	}
	if strings.Contains(string(r.Body), ts.Admin) {
		t.Error("a token appears in the metrics")
	}
}

func TestRequestID(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	r := ts.Get("repo=acme/none", http.StatusNotFound, "X-Request-ID", "abc-123")
	if r.Header.Get("X-Request-ID") != "abc-123" || r.ErrorBody(t).Details["request_id"] != "abc-123" {
		t.Errorf("request id not echoed: %v %s", r.Header, r.Body)
	}
	r = ts.Get("repo=acme/none", http.StatusNotFound, "X-Request-ID", "bad id\twith spaces")
	if id := r.Header.Get("X-Request-ID"); id == "" || strings.Contains(id, " ") {
		t.Errorf("generated id = %q", id)
	}
}

// TestCachedBodiesFollowWrites reads each view, writes, and reads again:
// a cached body must never outlive the version it was encoded at.
func TestCachedBodiesFollowWrites(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	for i := 0; i < 5; i++ {
		content := strings.Repeat("v", i+1)
		ts.Put("acme/api", map[string]string{"a.md": content}, nil, http.StatusOK)
		for j := 0; j < 2; j++ { // the second read is served from the cache
			full := servertest.Decode[api.TeamMemory](t, ts.Get("repo=acme/api", http.StatusOK))
			h := servertest.Decode[api.Hashes](t, ts.Get("repo=acme/api&view=hashes", http.StatusOK))
			if full.Content.Entries["a.md"] != content || full.Version != int64(i+1) || h.Version != int64(i+1) ||
				h.EntryChecksums["a.md"] != protocol.EntryChecksum([]byte(content)) {
				t.Fatalf("round %d read %d: stale body: %+v %+v", i, j, full, h)
			}
		}
	}
	// A reader without a grant never gets a cached body.
	stranger := ts.Token("eve", "other/*:read")
	if r := ts.Do(http.MethodGet, api.PathTeamMemory+"?repo=acme/api", stranger, nil); r.Status != http.StatusForbidden {
		t.Errorf("stranger = %d", r.Status)
	}
}
