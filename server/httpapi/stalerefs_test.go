package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/protocol/protocoltest"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/servertest"
)

const commitA = "0123456789abcdef0123456789abcdef01234567"

func staleReport(t *testing.T, ts *servertest.Server, token, repo string, req any, want int) servertest.Response {
	t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	r := ts.Do(http.MethodPost, api.PathStaleReferences+"?repo="+repo, token, body)
	if r.Status != want {
		t.Fatalf("report: %d, want %d: %s", r.Status, want, r.Body)
	}
	return r
}

// TestStaleReferenceReports: a writer reports what its check found; every
// reader of the repository reads the latest report of each live entry,
// with the version, commit and reporter; an edit makes it not current, a
// delete hides it.
func TestStaleReferenceReports(t *testing.T) {
	ts := servertest.Start(t, servertest.Options{})
	deploy, ok := "Deploys go through `scripts/release.sh`.\n", "See `client/push.go:RetryPush`.\n"
	ts.Put("acme/api", map[string]string{"deploy.md": deploy, "ok.md": ok}, nil, http.StatusOK)
	ana, reader, outsider := ts.Token("ana", "acme/api:write"), ts.Token("rui", "acme/api:read"), ts.Token("eve", "other/*:write")

	req := api.StaleReportRequest{Commit: commitA, Entries: map[string]api.StaleReportEntry{
		"deploy.md": {Checksum: protocol.EntryChecksum([]byte(deploy)), Findings: []api.StaleFinding{
			{Reference: "scripts/release.sh", Line: 1, Reason: api.StaleMissing, Since: "89abcdef", RenamedTo: "scripts/ship.sh"}}},
		"ok.md": {Checksum: protocol.EntryChecksum([]byte(ok)), Findings: []api.StaleFinding{}},
	}}
	res := servertest.Decode[api.StaleReportResponse](t, staleReport(t, ts, ana, "acme/api", req, http.StatusOK))
	if strings.Join(res.Recorded, ",") != "deploy.md,ok.md" || len(res.Skipped) != 0 {
		t.Fatalf("report = %+v; want both recorded", res)
	}
	got := servertest.Decode[api.StaleReports](t, ts.Do(http.MethodGet, api.PathStaleReferences+"?repo=Acme/API", reader, nil))
	if got.Repo != "acme/api" || len(got.Reports) != 2 {
		t.Fatalf("reports = %+v", got)
	}
	d := got.Reports[0]
	if d.Key != "deploy.md" || d.Version != 1 || !d.Current || d.Commit != commitA || d.Reporter != "ana" || d.ReportedAt == "" ||
		len(d.Findings) != 1 || d.Findings[0] != req.Entries["deploy.md"].Findings[0] {
		t.Errorf("deploy.md's report = %+v", d)
	}
	if o := got.Reports[1]; o.Key != "ok.md" || len(o.Findings) != 0 || !o.Current {
		t.Errorf("ok.md's report = %+v", o)
	}
	one := servertest.Decode[api.StaleReports](t, ts.Do(http.MethodGet, api.PathStaleReferences+"?repo=acme/api&key=ok.md", reader, nil))
	if len(one.Reports) != 1 || one.Reports[0].Key != "ok.md" {
		t.Errorf("the report of ok.md alone = %+v", one)
	}

	// Grants: reading needs read, reporting write; a refusal reads the
	// same whether or not the repository exists.
	staleReport(t, ts, reader, "acme/api", req, http.StatusForbidden)
	staleReport(t, ts, outsider, "acme/api", req, http.StatusForbidden)
	if r := ts.Do(http.MethodGet, api.PathStaleReferences+"?repo=acme/api", outsider, nil); r.Status != http.StatusForbidden {
		t.Errorf("an outsider reads the reports: %d", r.Status)
	}

	// An edit leaves the report of the old content, not current; a
	// report of the old content now is not recorded; a delete hides it.
	ts.Put("acme/api", map[string]string{"ok.md": "See `client/push.go:Push`.\n"}, []string{"deploy.md"}, http.StatusOK)
	res = servertest.Decode[api.StaleReportResponse](t, staleReport(t, ts, ana, "acme/api", req, http.StatusOK))
	if len(res.Recorded) != 0 || len(res.Skipped) != 2 || res.Skipped[0].Reason != "not_current" || res.Skipped[1].Reason != "not_current" {
		t.Errorf("a report of content the repository no longer holds = %+v", res)
	}
	got = servertest.Decode[api.StaleReports](t, ts.Do(http.MethodGet, api.PathStaleReferences+"?repo=acme/api", reader, nil))
	if len(got.Reports) != 1 || got.Reports[0].Key != "ok.md" || got.Reports[0].Current || got.Reports[0].Version != 1 {
		t.Errorf("after an edit and a delete: %+v; want ok.md's old report, not current", got.Reports)
	}
}

// TestStaleReferenceReportsHostile: a report is a teammate's text shown to
// others. A bad entry is left out with its reason and the rest recorded;
// a bad commit, body or count refuses the request; nothing out of bounds
// is stored.
func TestStaleReferenceReportsHostile(t *testing.T) {
	ts := servertest.Start(t, servertest.Options{})
	content := "x `a/b.go`\n"
	ts.Put("acme/api", map[string]string{"good.md": content, "bad.md": content}, nil, http.StatusOK)
	sum := protocol.EntryChecksum([]byte(content))
	finding := func(f api.StaleFinding) map[string]api.StaleReportEntry {
		return map[string]api.StaleReportEntry{"good.md": {Checksum: sum, Findings: []api.StaleFinding{{Reference: "a/b.go", Reason: api.StaleMissing}}},
			"bad.md": {Checksum: sum, Findings: []api.StaleFinding{f}}}
	}
	many := make([]api.StaleFinding, 65)
	for i := range many {
		many[i] = api.StaleFinding{Reference: "a/b.go", Reason: api.StaleMissing}
	}
	hostile := map[string]api.StaleFinding{
		"unknown reason":     {Reference: "a/b.go", Reason: "<script>"},
		"empty reference":    {Reference: "", Reason: api.StaleMissing},
		"long reference":     {Reference: strings.Repeat("a", 201), Reason: api.StaleMissing},
		"control character":  {Reference: "a/b.go\x1b[31m", Reason: api.StaleMissing},
		"newline":            {Reference: "a/b.go\n- [x](evil.md)", Reason: api.StaleMissing},
		"negative line":      {Reference: "a/b.go", Line: -1, Reason: api.StaleMissing},
		"huge line":          {Reference: "a/b.go", Line: 1 << 40, Reason: api.StaleMissing},
		"since not a commit": {Reference: "a/b.go", Reason: api.StaleMissing, Since: "HEAD~1"},
		"renamed to markup":  {Reference: "a/b.go", Reason: api.StaleMissing, RenamedTo: "<b>x</b>"},
		"renamed, not gone":  {Reference: "a/b.go", Reason: api.StalePastEnd, RenamedTo: "a/c.go"},
		"C1 control":         {Reference: "a/b\u009b31m.go", Reason: api.StaleMissing},
		"line separator":     {Reference: "a/b\u2028.go", Reason: api.StaleMissing},
	}
	for _, c := range protocoltest.BidiControls {
		hostile["bidi "+c.Name] = api.StaleFinding{Reference: "a/b" + string(c.Rune) + ".go", Reason: api.StaleMissing}
	}
	for name, bad := range hostile {
		t.Run(name, func(t *testing.T) {
			res := servertest.Decode[api.StaleReportResponse](t, staleReport(t, ts, ts.Admin, "acme/api",
				api.StaleReportRequest{Commit: commitA, Entries: finding(bad)}, http.StatusOK))
			if strings.Join(res.Recorded, ",") != "good.md" || len(res.Skipped) != 1 || res.Skipped[0].Key != "bad.md" ||
				res.Skipped[0].Reason != "invalid_finding" {
				t.Errorf("report = %+v; want good.md recorded, bad.md skipped as invalid_finding", res)
			}
		})
	}
	res := servertest.Decode[api.StaleReportResponse](t, staleReport(t, ts, ts.Admin, "acme/api", api.StaleReportRequest{Commit: commitA,
		Entries: map[string]api.StaleReportEntry{"bad.md": {Checksum: sum, Findings: many}, "../etc/passwd": {Checksum: sum, Findings: []api.StaleFinding{}},
			"never.md": {Checksum: sum, Findings: []api.StaleFinding{}}, "good.md": {Checksum: "sha256:" + strings.Repeat("0", 64), Findings: []api.StaleFinding{}}}}, http.StatusOK))
	reasons := map[string]string{}
	for _, s := range res.Skipped {
		reasons[s.Key] = s.Reason
	}
	if len(res.Recorded) != 0 || reasons["bad.md"] != "invalid_finding" || reasons["../etc/passwd"] != "invalid_key" ||
		reasons["never.md"] != "not_current" || reasons["good.md"] != "not_current" {
		t.Errorf("report = %+v", res)
	}
	got := servertest.Decode[api.StaleReports](t, ts.Do(http.MethodGet, api.PathStaleReferences+"?repo=acme/api", ts.Admin, nil))
	if len(got.Reports) != 1 || got.Reports[0].Key != "good.md" {
		t.Errorf("stored reports = %+v; want good.md's only", got.Reports)
	}

	for name, body := range map[string]string{
		"short commit":  `{"commit":"0123abc","entries":{}}`,
		"upper commit":  `{"commit":"` + strings.ToUpper(commitA) + `","entries":{}}`,
		"no commit":     `{"entries":{}}`,
		"not JSON":      `{"commit":`,
		"entries array": `{"commit":"` + commitA + `","entries":[]}`,
	} {
		if r := ts.Do(http.MethodPost, api.PathStaleReferences+"?repo=acme/api", ts.Admin, []byte(body)); r.Status != http.StatusBadRequest {
			t.Errorf("%s: %d %s; want 400", name, r.Status, r.Body)
		}
	}
	entries := map[string]api.StaleReportEntry{}
	for i := range api.MaxStaleReportEntries + 1 {
		entries[fmt.Sprintf("k%04d.md", i)] = api.StaleReportEntry{Checksum: sum}
	}
	staleReport(t, ts, ts.Admin, "acme/api", api.StaleReportRequest{Commit: commitA, Entries: entries}, http.StatusBadRequest)
	if r := ts.Do(http.MethodGet, api.PathStaleReferences+"?repo=acme/api&key=..%2Fx", ts.Admin, nil); r.Status != http.StatusBadRequest {
		t.Errorf("a bad key: %d", r.Status)
	}
}

// TestStaleReferenceStoredHiddenEscaped: a report stored before every
// bidirectional control was refused is read with its hidden characters
// escaped, never raw.
func TestStaleReferenceStoredHiddenEscaped(t *testing.T) {
	ts := servertest.Start(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "x `a/b.go`\n"}, nil, http.StatusOK)
	var findings []server.StaleFinding
	for _, c := range protocoltest.BidiControls {
		findings = append(findings, server.StaleFinding{Reference: "a/" + c.Name + string(c.Rune) + ".go", Reason: server.StaleMissing})
	}
	err := ts.Store.SaveStaleReports(context.Background(), "acme/api", []server.StaleReport{
		{Repo: "acme/api", Key: "a.md", Version: 1, Commit: commitA, Reporter: "old", At: time.Now(), Findings: findings}})
	if err != nil {
		t.Fatal(err)
	}
	got := servertest.Decode[api.StaleReports](t, ts.Do(http.MethodGet, api.PathStaleReferences+"?repo=acme/api", ts.Admin, nil))
	if len(got.Reports) != 1 || len(got.Reports[0].Findings) != len(protocoltest.BidiControls) {
		t.Fatalf("reports = %+v", got)
	}
	for i, c := range protocoltest.BidiControls {
		want := fmt.Sprintf(`a/%s\u%04X.go`, c.Name, c.Rune)
		if ref := got.Reports[0].Findings[i].Reference; ref != want {
			t.Errorf("%s: reference %+q; want %s", c.Name, ref, want)
		}
	}
}
