package openapitest

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
)

const (
	sum  = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	etag = `"` + sum + `"`
	base = "http://127.0.0.1:39999"
)

func TestDocumentLoads(t *testing.T) {
	doc := Load(t)
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
}

func TestDocumentHasEveryPath(t *testing.T) {
	doc := Load(t)
	paths := []string{
		api.PathTeamMemory, api.PathTeamMemoryAlias, api.PathEvents, api.PathHistory,
		api.PathRevision, api.PathRepos, api.PathHealthz, api.PathReadyz, api.PathMetrics,
	}
	for _, p := range paths {
		if doc.Paths.Value(p) == nil {
			t.Errorf("openapi.yaml has no path %s", p)
		}
	}
	for _, p := range []string{api.PathTeamMemory, api.PathTeamMemoryAlias} {
		item := doc.Paths.Value(p)
		if item == nil || item.Get == nil || item.Put == nil {
			t.Errorf("%s: want GET and PUT", p)
		}
	}
}

func TestPublicOperationsNeedNoToken(t *testing.T) {
	doc := Load(t)
	for _, p := range []string{api.PathHealthz, api.PathReadyz, api.PathMetrics} {
		op := doc.Paths.Value(p).Get
		if op.Security == nil || len(*op.Security) != 0 {
			t.Errorf("%s: want security: []", p)
		}
	}
	if len(doc.Security) != 1 {
		t.Errorf("want the document-wide bearerAuth requirement, got %v", doc.Security)
	}
}

// exchange is one request/response pair of the table below.
type exchange struct {
	name    string
	method  string
	target  string
	reqBody string
	token   bool
	status  int
	header  map[string]string
	body    string
	wantErr string // substring of Check's error; "" = must conform
}

const (
	teamMemoryBody = `{"organizationId":"default","repo":"acme/api","version":3,
		"lastModified":"2026-01-02T03:04:05.678Z","checksum":"` + sum + `",
		"content":{"entries":{"MEMORY.md":"# hi"},"entryChecksums":{"MEMORY.md":"` + sum + `"},
		"deletedEntries":{"old.md":1767323045678}}}`
	hashesBody = `{"version":3,"checksum":"` + sum + `","entryChecksums":{"MEMORY.md":"` + sum + `"},"deletedEntries":{}}`
	putOKBody  = `{"checksum":"` + sum + `","lastModified":"2026-01-02T03:04:05.678Z","version":4,"changed":["a.md"],"deleted":[]}`
	putReq     = `{"entries":{"a.md":"x"},"soft_delete_keys":["b.md"]}`
	// putSkippedBody is a 200 that left two entries out.
	putSkippedBody = `{"checksum":"` + sum + `","lastModified":"2026-01-02T03:04:05.678Z","version":4,"changed":["a.md"],"deleted":[],
		"skipped":[{"key":"aux.md","reason":"invalid_key","message":"Rename it."},
		{"key":"s.md","reason":"secret_detected","message":"Remove it.","rule_id":"slack-webhook-url","label":"Slack webhook URL"},
		{"key":"notes.md","reason":"key_collision","message":"Rename one.","existing":"Notes.md"}]}`
)

func errBody(typ, code, extra string) string {
	return `{"error":{"type":"` + typ + `","message":"Do something.","details":{"error_code":"` + code + `"` + extra + `}}}`
}

var exchanges = []exchange{
	{name: "pull", method: "GET", target: api.PathTeamMemory + "?repo=acme/api", token: true,
		status: 200, header: map[string]string{"ETag": etag}, body: teamMemoryBody},
	{name: "pull on alias with encoded repo", method: "GET", target: api.PathTeamMemoryAlias + "?repo=acme%2Fapi", token: true,
		status: 200, header: map[string]string{"ETag": etag}, body: teamMemoryBody},
	{name: "hashes", method: "GET", target: api.PathTeamMemory + "?repo=acme/api&view=hashes", token: true,
		status: 200, header: map[string]string{"ETag": etag}, body: hashesBody},
	{name: "not modified", method: "GET", target: api.PathTeamMemory + "?repo=acme/api", token: true,
		status: 304, header: map[string]string{"ETag": etag}},
	{name: "put", method: "PUT", target: api.PathTeamMemory + "?repo=acme/api", reqBody: putReq, token: true,
		status: 200, header: map[string]string{"ETag": etag}, body: putOKBody},
	{name: "412 with checksum", method: "PUT", target: api.PathTeamMemory + "?repo=acme/api", reqBody: putReq, token: true,
		status: 412, body: errBody("conflict", "etag_mismatch", `,"checksum":"`+sum+`"`)},
	{name: "413 too many entries", method: "PUT", target: api.PathTeamMemory + "?repo=acme/api", reqBody: putReq, token: true,
		status: 413, body: errBody("invalid_request_error", "team_memory_too_many_entries", `,"max_entries":1000,"received_entries":1001`)},
	{name: "put with skipped entries", method: "PUT", target: api.PathTeamMemory + "?repo=acme/api", reqBody: putReq, token: true,
		status: 200, header: map[string]string{"ETag": etag}, body: putSkippedBody},
	{name: "skipped secret without its rule", method: "PUT", target: api.PathTeamMemory + "?repo=acme/api", reqBody: putReq, token: true,
		status: 200, header: map[string]string{"ETag": etag}, wantErr: "response does not conform",
		body: `{"checksum":"` + sum + `","lastModified":"2026-01-02T03:04:05.678Z","version":4,"changed":[],"deleted":[],"skipped":[{"key":"s.md","reason":"secret_detected","message":"Remove it."}]}`},
	{name: "413 repo too large, code-less", method: "PUT", target: api.PathTeamMemory + "?repo=acme/api", reqBody: putReq, token: true,
		status: 413, body: `{"error":{"type":"invalid_request_error","message":"Shrink it.","details":{"reason":"repo_too_large","max_bytes":100,"bytes":150,"request_id":"r"}}}`},
	{name: "413 request too large, code-less", method: "PUT", target: api.PathTeamMemory + "?repo=acme/api", reqBody: putReq, token: true,
		status: 413, body: `{"error":{"type":"invalid_request_error","message":"Split it.","details":{"reason":"request_too_large","max_bytes":2097152}}}`},
	{name: "413 repo too large without bytes", method: "PUT", target: api.PathTeamMemory + "?repo=acme/api", reqBody: putReq, token: true,
		status: 413, body: `{"error":{"type":"invalid_request_error","message":"Shrink it.","details":{"reason":"repo_too_large","max_bytes":100}}}`,
		wantErr: "response does not conform"},
	{name: "401 without a token", method: "GET", target: api.PathTeamMemory + "?repo=acme/api",
		status: 401, body: errBody("authentication_error", "unauthenticated", "")},
	{name: "400 for a missing repo", method: "GET", target: api.PathTeamMemory, token: true,
		status: 400, body: errBody("invalid_request_error", "invalid_repo", "")},
	{name: "429 with Retry-After", method: "GET", target: api.PathTeamMemory + "?repo=acme/api", token: true,
		status: 429, header: map[string]string{"Retry-After": "1"}, body: errBody("rate_limit_error", "rate_limited", "")},
	{name: "history", method: "GET", target: api.PathHistory + "?repo=acme/api&key=a.md", token: true,
		status: 200, body: `{"repo":"acme/api","key":"a.md","revisions":[{"version":2,"op":"put","checksum":"` + sum + `","size":1,"author":"ci","at":"2026-01-02T03:04:05.678Z"}]}`},
	{name: "revision", method: "GET", target: api.PathRevision + "?repo=acme/api&key=a.md&version=2", token: true,
		status: 200, body: `{"repo":"acme/api","key":"a.md","version":2,"op":"delete","checksum":"` + sum + `","author":"ci","at":"2026-01-02T03:04:05.678Z","content":""}`},
	{name: "repos", method: "GET", target: api.PathRepos, token: true,
		status: 200, body: `{"repos":[{"repo":"acme/api","version":3,"entries":1,"bytes":4,"lastModified":"2026-01-02T03:04:05.678Z"}]}`},
	{name: "events", method: "GET", target: api.PathEvents + "?repo=acme/api&after=2", token: true,
		status: 200, header: map[string]string{"Content-Type": "text/event-stream"}, body: "id: 3\nevent: change\ndata: {}\n\n"},
	{name: "healthz", method: "GET", target: api.PathHealthz, status: 200, body: `{"status":"ok"}`},
	{name: "readyz down", method: "GET", target: api.PathReadyz, status: 503, body: `{"status":"unavailable","error":"The store is unreachable."}`},
	{name: "metrics", method: "GET", target: api.PathMetrics, status: 200,
		header: map[string]string{"Content-Type": "text/plain; version=0.0.4; charset=utf-8"}, body: "# HELP x y\nx 1\n"},

	{name: "bad checksum", method: "GET", target: api.PathTeamMemory + "?repo=acme/api&view=hashes", token: true,
		status: 200, header: map[string]string{"ETag": etag}, body: strings.ReplaceAll(hashesBody, sum, "sha256:XYZ"),
		wantErr: "response does not conform"},
	{name: "snake case field", method: "GET", target: api.PathTeamMemory + "?repo=acme/api&view=hashes", token: true,
		status: 200, header: map[string]string{"ETag": etag}, body: strings.ReplaceAll(hashesBody, "entryChecksums", "entry_checksums"),
		wantErr: "response does not conform"},
	{name: "missing ETag", method: "GET", target: api.PathTeamMemory + "?repo=acme/api", token: true,
		status: 200, body: teamMemoryBody, wantErr: "ETag"},
	{name: "null changed", method: "PUT", target: api.PathTeamMemory + "?repo=acme/api", reqBody: putReq, token: true,
		status: 200, header: map[string]string{"ETag": etag}, body: strings.Replace(putOKBody, `["a.md"]`, "null", 1),
		wantErr: "response does not conform"},
	{name: "lastModified without milliseconds", method: "PUT", target: api.PathTeamMemory + "?repo=acme/api", reqBody: putReq, token: true,
		status: 200, header: map[string]string{"ETag": etag}, body: strings.Replace(putOKBody, ".678Z", "Z", 1),
		wantErr: "response does not conform"},
	{name: "412 without checksum", method: "PUT", target: api.PathTeamMemory + "?repo=acme/api", reqBody: putReq, token: true,
		status: 412, body: errBody("conflict", "etag_mismatch", ""), wantErr: "response does not conform"},
	{name: "413 without counts", method: "PUT", target: api.PathTeamMemory + "?repo=acme/api", reqBody: putReq, token: true,
		status: 413, body: errBody("invalid_request_error", "team_memory_too_many_entries", ""), wantErr: "response does not conform"},
	{name: "403 typed as 401", method: "GET", target: api.PathTeamMemory + "?repo=acme/api", token: true,
		status: 403, body: errBody("authentication_error", "forbidden", ""), wantErr: "response does not conform"},
	{name: "429 without Retry-After", method: "GET", target: api.PathTeamMemory + "?repo=acme/api", token: true,
		status: 429, body: errBody("rate_limit_error", "rate_limited", ""), wantErr: "Retry-After"},
	{name: "undocumented status", method: "GET", target: api.PathTeamMemory + "?repo=acme/api", token: true,
		status: 418, body: errBody("api_error", "internal", ""), wantErr: "418"},
	{name: "unknown path", method: "GET", target: "/api/nope", token: true,
		status: 200, body: `{}`, wantErr: "no operation"},
	{name: "request without token", method: "GET", target: api.PathTeamMemory + "?repo=acme/api",
		status: 200, header: map[string]string{"ETag": etag}, body: teamMemoryBody, wantErr: "request does not conform"},
	{name: "request with bad view", method: "GET", target: api.PathTeamMemory + "?repo=acme/api&view=full", token: true,
		status: 200, header: map[string]string{"ETag": etag}, body: teamMemoryBody, wantErr: "request does not conform"},
}

func TestCheck(t *testing.T) {
	doc := Load(t)
	for _, x := range exchanges {
		t.Run(x.name, func(t *testing.T) {
			var body *bytes.Reader
			if x.reqBody != "" {
				body = bytes.NewReader([]byte(x.reqBody))
			}
			req := newRequest(t, x.method, base+x.target, body)
			if x.reqBody != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if x.token {
				req.Header.Set("Authorization", "Bearer abc.def.ghi")
			}
			resp := &http.Response{StatusCode: x.status, Header: http.Header{}, Request: req}
			if x.body != "" {
				resp.Header.Set("Content-Type", "application/json")
			}
			for k, v := range x.header {
				resp.Header.Set(k, v)
			}
			err := Check(t.Context(), doc, req, resp, []byte(x.body))
			switch {
			case x.wantErr == "" && err != nil:
				t.Fatalf("want conformance, got %v", err)
			case x.wantErr != "" && err == nil:
				t.Fatalf("want an error mentioning %q, got none", x.wantErr)
			case x.wantErr != "" && !strings.Contains(err.Error(), x.wantErr):
				t.Fatalf("want an error mentioning %q, got %v", x.wantErr, err)
			case err != nil && testing.Verbose():
				t.Log(err)
			}
		})
	}
}

func newRequest(t *testing.T, method, url string, body *bytes.Reader) *http.Request {
	t.Helper()
	var (
		req *http.Request
		err error
	)
	if body == nil {
		req, err = http.NewRequest(method, url, nil)
	} else {
		req, err = http.NewRequest(method, url, body)
	}
	if err != nil {
		t.Fatal(err)
	}
	return req
}
