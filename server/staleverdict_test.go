package server

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestStaleVerdict: the verdict of an entry is the report of the newest
// commit on the branch most teammates report from, whatever order the
// reports came in; the others that found otherwise are listed with why
// they rank below.
func TestStaleVerdict(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	missing := []StaleFinding{{Reference: "scripts/release.sh", Reason: StaleMissing}}
	held := []StaleFinding{}
	// r is a report: reporter, commit (one hex digit repeated), hours
	// after t0 the commit was made (-1: not said), branch, minutes after
	// t0 it was reported, findings.
	r := func(who string, commit byte, hours int, branch string, minute int, f []StaleFinding) StaleReport {
		rep := StaleReport{Key: "a.md", Reporter: who, Commit: strings.Repeat(string(commit), 40), Branch: branch,
			At: t0.Add(time.Duration(minute) * time.Minute), Findings: f}
		if hours >= 0 {
			rep.CommittedAt = t0.Add(time.Duration(hours) * time.Hour)
		}
		return rep
	}
	tests := []struct {
		name    string
		reports []StaleReport
		commit  byte
		others  string // commit:standing of each other, best first
	}{
		{"an older checkout reports last", []StaleReport{r("ana", 'b', 2, "main", 1, missing), r("bo", 'a', 1, "main", 2, held)}, 'b', "a:older"},
		{"a newer commit restores the file", []StaleReport{r("ana", 'b', 2, "main", 1, missing), r("bo", 'a', 1, "main", 2, held),
			r("bo", 'c', 3, "main", 3, held)}, 'c', "b:older"},
		{"agreeing reports are not listed", []StaleReport{r("ana", 'b', 2, "main", 1, missing), r("bo", 'a', 1, "main", 2, missing)}, 'b', ""},
		{"the same commit, reported again", []StaleReport{r("ana", 'b', 2, "main", 1, missing), r("bo", 'b', 2, "main", 2, held)}, 'b', ""},
		{"a branch fewer report from", []StaleReport{r("ana", 'a', 1, "main", 1, held), r("bo", 'a', 1, "main", 2, held),
			r("cy", 'f', 5, "feature", 3, missing)}, 'a', "f:other-branch"},
		{"as many on each branch: the newest commit", []StaleReport{r("ana", 'a', 1, "main", 1, held),
			r("cy", 'f', 5, "feature", 3, missing)}, 'f', "a:other-branch"},
		{"an agent that gives no time ranks below", []StaleReport{r("ana", 'b', 2, "main", 1, missing), r("old", 'a', -1, "", 9, held)}, 'b', "a:undated"},
		{"no agent gives a time: the later report", []StaleReport{r("ana", 'b', -1, "", 1, missing), r("bo", 'a', -1, "", 2, held)}, 'a', "b:earlier"},
		{"a detached HEAD is off the branch", []StaleReport{r("ana", 'b', 2, "main", 1, held), r("ci", 'c', 3, "", 2, missing)}, 'b', "c:other-branch"},
		{"one commit time, the later report", []StaleReport{r("ana", 'b', 2, "main", 1, missing), r("bo", 'a', 2, "main", 2, held)}, 'a', "b:earlier"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, order := range [][]StaleReport{tc.reports, reversed(tc.reports)} {
				v := verdictOf(order)
				var others []string
				for _, o := range v.Others {
					others = append(others, fmt.Sprintf("%c:%s", o.Commit[0], o.Standing))
				}
				if v.Commit[0] != tc.commit || strings.Join(others, ",") != tc.others {
					t.Errorf("verdict at %c, others %q; want %c, %q", v.Commit[0], strings.Join(others, ","), tc.commit, tc.others)
				}
			}
		})
	}
}

func reversed(rs []StaleReport) []StaleReport {
	out := make([]StaleReport, len(rs))
	for i, r := range rs {
		out[len(rs)-1-i] = r
	}
	return out
}

// TestCheckReportCommit: a report's commit is a full id, its time not
// before 1970 and never after the server's clock (a later one is taken
// as now, to the second), its branch bounded printable text.
func TestCheckReportCommit(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 500_000, time.UTC)
	commit := strings.Repeat("a", 40)
	ok := []StaleReportInput{
		{Commit: commit},
		{Commit: strings.Repeat("b", 64), CommittedAt: now.Add(-time.Hour), Branch: "feature/ünïcode-1.2"},
		{Commit: commit, Branch: strings.Repeat("b", MaxStaleBranch)},
	}
	for _, in := range ok {
		got, err := checkReportCommit(in, now)
		if err != nil || !got.CommittedAt.Equal(in.CommittedAt) {
			t.Errorf("checkReportCommit(%+v) = %v, %v; want it as given", in, got.CommittedAt, err)
		}
	}
	for _, ahead := range []time.Time{now.Add(time.Minute), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)} {
		got, err := checkReportCommit(StaleReportInput{Commit: commit, CommittedAt: ahead}, now)
		if want := now.Truncate(time.Second); err != nil || !got.CommittedAt.Equal(want) {
			t.Errorf("a commit time of %v = %v, %v; want %v", ahead, got.CommittedAt, err, want)
		}
	}
	bad := map[string]StaleReportInput{
		"short commit":      {Commit: "abc1234"},
		"not hex":           {Commit: strings.Repeat("g", 40)},
		"a ref":             {Commit: "refs/heads/main"},
		"before 1970":       {Commit: commit, CommittedAt: time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC)},
		"huge branch":       {Commit: commit, Branch: strings.Repeat("b", MaxStaleBranch+1)},
		"branch with space": {Commit: commit, Branch: "main now"},
		"branch newline":    {Commit: commit, Branch: "main\n- [x](evil.md)"},
		"branch bidi":       {Commit: commit, Branch: "main\u202Eevil"},
		"branch not UTF-8":  {Commit: commit, Branch: "main\xff"},
	}
	for name, in := range bad {
		if _, err := checkReportCommit(in, now); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
