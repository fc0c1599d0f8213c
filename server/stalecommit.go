package server

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The commit a stale-reference report was made at: its id, and what the
// reporting agent says of it (the commit's committer time, the branch the
// checkout is on), which the server, holding no repository, orders the
// reports of different commits by (see staleverdict.go).

// MaxStaleBranch is the longest branch name a report may give, in bytes
// (a ref's file name on most file systems).
const MaxStaleBranch = 255

// oldestCommitTime is the earliest committer time a report may give: git
// records seconds since 1970.
var oldestCommitTime = time.Unix(0, 0).UTC()

// checkReportCommit checks the commit a report was made at, at the
// server's time now: a full commit id, a committer time not before 1970
// (a time after now is taken as now: a committer's clock running ahead
// must not make its commit outrank every commit made before the report
// reached the server), a branch name of printable text without spaces.
// It returns the input with the time so bounded.
func checkReportCommit(in StaleReportInput, now time.Time) (StaleReportInput, error) {
	switch {
	case !commitPattern.MatchString(in.Commit):
		return in, invalidf(ReasonInvalidBody, "commit %.80q is not a full git commit id (40 or 64 lowercase hex digits)", in.Commit)
	case !in.CommittedAt.IsZero() && in.CommittedAt.Before(oldestCommitTime):
		return in, invalidf(ReasonInvalidBody, "committedAt %s is before 1970: not a git commit time", in.CommittedAt.Format(time.RFC3339))
	case len(in.Branch) > MaxStaleBranch:
		return in, invalidf(ReasonInvalidBody, "branch %.40q… is %d bytes; at most %d", in.Branch, len(in.Branch), MaxStaleBranch)
	case !utf8.ValidString(in.Branch) || strings.ContainsFunc(in.Branch, notInBranch):
		return in, invalidf(ReasonInvalidBody, "branch %.80q is not a branch name (printable text without spaces)", in.Branch)
	}
	now = now.UTC().Truncate(time.Second) // git's resolution: a commit made in the same second ties, and the later report wins
	if in.CommittedAt.After(now) {
		in.CommittedAt = now
	}
	in.CommittedAt = in.CommittedAt.UTC().Truncate(time.Microsecond)
	return in, nil
}

// notInBranch reports a character a branch name shown to others may not
// hold: what free text may not (hiddenInText), and spaces, which git
// refuses in a ref name.
func notInBranch(r rune) bool { return hiddenInText(r) || unicode.IsSpace(r) }
