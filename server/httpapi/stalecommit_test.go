package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/testkit/servertest"
)

// staleAt is a report of deploy.md's content at commit (one hex digit
// repeated), committed at when (zero: not said) on branch, finding
// scripts/release.sh missing or not.
func staleAt(content string, commit byte, when time.Time, branch string, missing bool) api.StaleReportRequest {
	f := []api.StaleFinding{}
	if missing {
		f = append(f, api.StaleFinding{Reference: "scripts/release.sh", Line: 1, Reason: api.StaleMissing})
	}
	req := api.StaleReportRequest{Commit: strings.Repeat(string(commit), 40), Branch: branch,
		Entries: map[string]api.StaleReportEntry{"deploy.md": {Checksum: protocol.EntryChecksum([]byte(content)), Findings: f}}}
	if !when.IsZero() {
		req.CommittedAt = when.UTC().Format(time.RFC3339)
	}
	return req
}

// verdict reads deploy.md's verdict.
func verdict(t *testing.T, ts *servertest.Server, token string) api.StaleEntryReport {
	t.Helper()
	got := servertest.Decode[api.StaleReports](t, ts.Do(http.MethodGet, api.PathStaleReferences+"?repo=acme/api&key=deploy.md", token, nil))
	if len(got.Reports) != 1 {
		t.Fatalf("reports = %+v; want deploy.md's", got.Reports)
	}
	return got.Reports[0]
}

// TestStaleVerdictKeepsNewestCommit: a teammate reporting from an older
// checkout after the one who reported the newest commit does not turn
// the verdict back: it holds at the newest commit, with the older report
// listed as found otherwise; a newer commit that restores the file turns
// it to held; a branch fewer teammates report from, and an agent that
// gives no commit time, are kept and shown but do not overturn it.
func TestStaleVerdictKeepsNewestCommit(t *testing.T) {
	ts := servertest.Start(t, servertest.Options{})
	content := "Deploys go through `scripts/release.sh`.\n"
	ts.Put("acme/api", map[string]string{"deploy.md": content}, nil, http.StatusOK)
	ana, bo, cy, old := ts.Token("ana", "acme/api:write"), ts.Token("bo", "acme/api:write"), ts.Token("cy", "acme/api:write"),
		ts.Token("old", "acme/api:write")
	t0 := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

	staleReport(t, ts, ana, "acme/api", staleAt(content, 'b', t0.Add(time.Hour), "main", true), http.StatusOK)
	staleReport(t, ts, bo, "acme/api", staleAt(content, 'a', t0, "main", false), http.StatusOK)
	v := verdict(t, ts, ana)
	if v.Commit != strings.Repeat("b", 40) || v.Reporter != "ana" || len(v.Findings) != 1 || v.Branch != "main" ||
		v.CommittedAt != "2026-04-01T10:00:00Z" {
		t.Fatalf("after an older checkout reported held, the verdict = %+v; want ana's missing at bbbb…", v)
	}
	if len(v.Others) != 1 || v.Others[0].Reporter != "bo" || v.Others[0].Stale != 0 || v.Others[0].Standing != api.StandingOlder ||
		v.Others[0].CommittedAt != "2026-04-01T09:00:00Z" {
		t.Errorf("the others = %+v; want bo's held at an older commit", v.Others)
	}

	// A newer commit restores the file: held, whoever reports it.
	staleReport(t, ts, bo, "acme/api", staleAt(content, 'c', t0.Add(2*time.Hour), "main", false), http.StatusOK)
	if v = verdict(t, ts, ana); v.Commit != strings.Repeat("c", 40) || len(v.Findings) != 0 || len(v.Others) != 1 ||
		v.Others[0].Reporter != "ana" || v.Others[0].Stale != 1 {
		t.Fatalf("after a newer commit restored the file, the verdict = %+v", v)
	}

	// A later commit on a branch one teammate reports from, and an agent
	// that gives no time: listed, not the verdict.
	staleReport(t, ts, cy, "acme/api", staleAt(content, 'f', t0.Add(3*time.Hour), "drop-release", true), http.StatusOK)
	staleReport(t, ts, old, "acme/api", staleAt(content, 'e', time.Time{}, "", true), http.StatusOK)
	v = verdict(t, ts, ana)
	standings := map[string]string{}
	for _, o := range v.Others {
		standings[o.Reporter] = o.Standing
	}
	if v.Commit != strings.Repeat("c", 40) || standings["cy"] != api.StandingOtherBranch || standings["old"] != api.StandingUndated {
		t.Errorf("with a branch and an undated report, the verdict = %+v", v)
	}
}

// TestStaleVerdictHostileCommit: a report's commit, committer time and
// branch are a teammate's claims. A time that is not RFC 3339 or before
// 1970, a branch over 255 bytes or holding spaces or hidden characters
// refuse the request; a time far ahead is taken as the time of the
// report, so it cannot pin the verdict above the commits made after it.
func TestStaleVerdictHostileCommit(t *testing.T) {
	ts := servertest.Start(t, servertest.Options{})
	content := "Deploys go through `scripts/release.sh`.\n"
	ts.Put("acme/api", map[string]string{"deploy.md": content}, nil, http.StatusOK)
	ana, eve := ts.Token("ana", "acme/api:write"), ts.Token("eve", "acme/api:write")

	for name, body := range map[string]string{
		"time not RFC 3339": `{"commit":"` + commitA + `","committedAt":"yesterday","entries":{}}`,
		"time a number":     `{"commit":"` + commitA + `","committedAt":1700000000,"entries":{}}`,
		"time before 1970":  `{"commit":"` + commitA + `","committedAt":"1969-12-31T23:59:59Z","entries":{}}`,
		"huge branch":       `{"commit":"` + commitA + `","branch":"` + strings.Repeat("b", 256) + `","entries":{}}`,
		"branch with space": `{"commit":"` + commitA + `","branch":"main; rm -rf","entries":{}}`,
		"branch newline":    `{"commit":"` + commitA + `","branch":"main\n<b>x</b>","entries":{}}`,
		"branch bidi":       `{"commit":"` + commitA + `","branch":"main\u202e","entries":{}}`,
		"commit not hex":    `{"commit":"` + strings.Repeat("z", 40) + `","entries":{}}`,
		"commit a ref":      `{"commit":"refs/heads/main","entries":{}}`,
	} {
		if r := ts.Do(http.MethodPost, api.PathStaleReferences+"?repo=acme/api", ana, []byte(body)); r.Status != http.StatusBadRequest ||
			!strings.Contains(string(r.Body), "invalid_body") {
			t.Errorf("%s: %d %s; want 400 invalid_body", name, r.Status, r.Body)
		}
	}
	if got := servertest.Decode[api.StaleReports](t, ts.Do(http.MethodGet, api.PathStaleReferences+"?repo=acme/api", ana, nil)); len(got.Reports) != 0 {
		t.Fatalf("a refused report was stored: %+v", got.Reports)
	}

	// A commit dated in year 9999: stored at the time of the report.
	staleReport(t, ts, eve, "acme/api", staleAt(content, 'e', time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), "main", true), http.StatusOK)
	v := verdict(t, ts, ana)
	at, err := time.Parse(time.RFC3339, v.CommittedAt)
	if err != nil || at.After(time.Now()) {
		t.Fatalf("a commit time far ahead is stored as %q (%v); want no later than now", v.CommittedAt, err)
	}
	// A commit made since outranks it.
	staleReport(t, ts, ana, "acme/api", staleAt(content, 'a', time.Now(), "main", false), http.StatusOK)
	if v = verdict(t, ts, ana); v.Commit != strings.Repeat("a", 40) || len(v.Findings) != 0 {
		t.Errorf("after a commit made since, the verdict = %+v; want ana's at aaaa…", v)
	}
	// A branch of 255 bytes is a branch.
	staleReport(t, ts, ana, "acme/api", staleAt(content, 'a', time.Now(), strings.Repeat("b", 255), false), http.StatusOK)
}
