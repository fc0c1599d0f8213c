package server

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// The verdict of an entry's stale-reference reports. Teammates' agents
// check the same entry at different commits, and the server holds no
// repository to tell which commit is newer: it goes by what each report
// says of its commit. The verdict is the report ranked first by, in turn:
//
//  1. checked on the main line: the branch the most teammates reported
//     the entry from (a tie goes to the branch whose newest commit time
//     is latest); when no report names a branch, every report is on it;
//  2. the commit's time given (agents older than the field give none);
//  3. the later committer time;
//  4. the later report;
//  5. the commit id and reporter (to break the last ties the same way
//     every time).
//
// So a teammate reporting from an older checkout of the main line, or
// from a branch, is kept and shown but does not overturn the verdict of
// the newest commit; a newer commit's report does, whatever it finds.

// StaleReportsKept is how many reports of one entry a store keeps (one
// per commit and reporter): each reporter's latest first, then each one's
// one before, and so on, the later reported first within a round.
const StaleReportsKept = 20

// StaleVerdict is what the server says of one entry's code references:
// the report ranked first, and the reports of other commits whose
// findings differ from it.
type StaleVerdict struct {
	StaleReport
	Others []StaleOther // ranked best first
}

// StaleOther is a report of another commit that found otherwise than the
// verdict, with why it is not the verdict.
type StaleOther struct {
	StaleReport
	Standing Standing
}

// Standing says why a report is not its entry's verdict.
type Standing string

// The standings of a report that is not the verdict.
const (
	StandingOlder       Standing = "older"        // its commit is older, on the verdict's line
	StandingUndated     Standing = "undated"      // its agent gave no commit time (the verdict's did)
	StandingOtherBranch Standing = "other-branch" // it was checked off the main line
	StandingEarlier     Standing = "earlier"      // no commit time tells them apart; reported before
)

// staleVerdicts returns the verdict of each entry of reports (sorted by
// key), by key.
func staleVerdicts(reports []StaleReport) []StaleVerdict {
	var out []StaleVerdict
	for len(reports) > 0 {
		n := 1
		for n < len(reports) && reports[n].Key == reports[0].Key {
			n++
		}
		out = append(out, verdictOf(reports[:n]))
		reports = reports[n:]
	}
	return out
}

// verdictOf returns the verdict of one entry's reports (at least one).
func verdictOf(reports []StaleReport) StaleVerdict {
	line := mainLine(reports)
	rank := func(a, b StaleReport) int { return compareStale(a, b, line) }
	best := slices.MaxFunc(reports, rank)
	v := StaleVerdict{StaleReport: best}
	for _, r := range reports {
		if r.Commit == best.Commit || sameFindings(r.Findings, best.Findings) {
			continue
		}
		v.Others = append(v.Others, StaleOther{StaleReport: r, Standing: standingOf(r, best, line)})
	}
	slices.SortFunc(v.Others, func(a, b StaleOther) int { return rank(b.StaleReport, a.StaleReport) })
	return v
}

// mainLine returns the branch the most reporters reported from, a tie to
// the branch of the latest committer time, then to the first name; ""
// when no report names a branch.
func mainLine(reports []StaleReport) string {
	type branch struct {
		reporters map[string]bool
		newest    time.Time
	}
	branches := map[string]*branch{}
	for _, r := range reports {
		if r.Branch == "" {
			continue
		}
		b := branches[r.Branch]
		if b == nil {
			b = &branch{reporters: map[string]bool{}}
			branches[r.Branch] = b
		}
		b.reporters[r.Reporter] = true
		if r.CommittedAt.After(b.newest) {
			b.newest = r.CommittedAt
		}
	}
	line := ""
	for name, b := range branches {
		if line == "" {
			line = name
			continue
		}
		o := branches[line]
		if c := cmp.Or(cmp.Compare(len(b.reporters), len(o.reporters)), b.newest.Compare(o.newest), strings.Compare(line, name)); c > 0 {
			line = name
		}
	}
	return line
}

// onLine says r was checked on line ("": every report is).
func onLine(r StaleReport, line string) bool { return line == "" || r.Branch == line }

// compareStale orders two reports of one entry, the verdict greatest.
func compareStale(a, b StaleReport, line string) int {
	return cmp.Or(
		compareBool(onLine(a, line), onLine(b, line)),
		compareBool(!a.CommittedAt.IsZero(), !b.CommittedAt.IsZero()),
		a.CommittedAt.Compare(b.CommittedAt),
		a.At.Compare(b.At),
		strings.Compare(a.Commit, b.Commit),
		strings.Compare(a.Reporter, b.Reporter),
	)
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// standingOf says why r, of another commit, ranks below best.
func standingOf(r, best StaleReport, line string) Standing {
	switch {
	case r.CommittedAt.IsZero() && !best.CommittedAt.IsZero():
		return StandingUndated
	case !onLine(r, line):
		return StandingOtherBranch
	case r.CommittedAt.Before(best.CommittedAt):
		return StandingOlder
	}
	return StandingEarlier
}

// sameFindings says two reports name the same stale references for the
// same reasons, in whatever order (the line of a reference moves with
// the entry's edits, and how far back a removal was traced with the
// checkout's history).
func sameFindings(a, b []StaleFinding) bool {
	if len(a) != len(b) {
		return false
	}
	return slices.Equal(findingNames(a), findingNames(b))
}

// findingNames returns the reference and reason of each finding, sorted.
func findingNames(fs []StaleFinding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Reason + "\x00" + f.Reference
	}
	slices.Sort(out)
	return out
}
