package api

// PathStaleReferences is where agents report the stale code references
// they found in a repository's topics (POST) and where the latest report
// of each entry is read (GET).
const PathStaleReferences = "/api/v1/stale-references"

// MaxStaleReportEntries is the most entries one POST may report.
const MaxStaleReportEntries = 1000

// Reasons a reference is stale (a StaleFinding's Reason).
const (
	StaleMissing  = "missing"   // the path is not in the commit's tree
	StalePastEnd  = "past-end"  // the line range ends after the file's last line
	StaleNoSymbol = "no-symbol" // the file does not hold the symbol
	StaleNotFile  = "not-file"  // a line range or symbol names a folder, or a folder reference a file
)

// StaleReportRequest is the body of POST /api/v1/stale-references?repo=R:
// the commit the checkout's HEAD was at and, for each entry checked, the
// checksum of the content checked ("sha256:<hex>", as the server holds it)
// and the stale references found (none: every reference held).
type StaleReportRequest struct {
	Commit string `json:"commit"`
	// CommittedAt is the commit's committer time (RFC 3339) and Branch
	// the branch the checkout is on (its short name, "" when HEAD is
	// detached): what the server orders the reports of different commits
	// by. Agents older than them send neither.
	CommittedAt string                      `json:"committedAt,omitempty"`
	Branch      string                      `json:"branch,omitempty"`
	Entries     map[string]StaleReportEntry `json:"entries"`
}

// StaleReportEntry is one entry of a report.
type StaleReportEntry struct {
	Checksum string         `json:"checksum"`
	Findings []StaleFinding `json:"findings"`
}

// StaleFinding is one stale reference of a topic.
type StaleFinding struct {
	// Reference is the reference as written in the topic.
	Reference string `json:"reference"`
	// Line is the topic's line holding it (1-based; 0 unknown).
	Line int `json:"line"`
	// Reason is one of the Stale* reasons.
	Reason string `json:"reason"`
	// Since is, for a missing path, the commit that removed it.
	Since string `json:"since,omitempty"`
	// RenamedTo is where that commit moved the path.
	RenamedTo string `json:"renamedTo,omitempty"`
}

// StaleReportResponse is the answer to a report: the entries recorded and
// those left out (reason invalid_key, not_current or invalid_finding).
type StaleReportResponse struct {
	Repo     string              `json:"repo"`
	Recorded []string            `json:"recorded"`
	Skipped  []StaleSkippedEntry `json:"skipped"`
}

// StaleSkippedEntry is one entry of a report that was not recorded.
type StaleSkippedEntry struct {
	Key     string `json:"key"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// StaleReports is the body of GET /api/v1/stale-references?repo=R[&key=K]:
// the verdict of each live entry that has a report, sorted by key.
type StaleReports struct {
	Repo    string             `json:"repo"`
	Reports []StaleEntryReport `json:"reports"`
}

// StaleEntryReport is the verdict of one entry: the report made at the
// newest commit reported (docs/memory-references.md says how commits are
// ordered), and the reports of other commits that found otherwise.
type StaleEntryReport struct {
	Key string `json:"key"`
	// Version is the entry's version whose content was checked; Current
	// says it is still the live one.
	Version int64 `json:"version"`
	Current bool  `json:"current"`
	// Commit is the checkout's HEAD it was checked against; CommittedAt
	// that commit's committer time as the agent read it, no later than
	// the report (RFC 3339, UTC; "" when the agent did not say); Branch
	// the branch the checkout was on ("" unknown or detached).
	Commit      string `json:"commit"`
	CommittedAt string `json:"committedAt,omitempty"`
	Branch      string `json:"branch,omitempty"`
	// Reporter is the token subject that reported it; ReportedAt when
	// (RFC 3339, UTC).
	Reporter   string         `json:"reporter"`
	ReportedAt string         `json:"reportedAt"`
	Findings   []StaleFinding `json:"findings"`
	// Others are the reports kept of other commits whose findings differ
	// from these, the best ranked first.
	Others []StaleOtherReport `json:"others"`
}

// Why a report of another commit is not an entry's verdict (a
// StaleOtherReport's Standing).
const (
	StandingOlder       = "older"        // its commit is older than the verdict's, on the same branch
	StandingOtherBranch = "other-branch" // it was checked on a branch other than the one most teammates report from
	StandingUndated     = "undated"      // its agent did not send the commit's time
	StandingEarlier     = "earlier"      // no commit time tells them apart: it was reported before the verdict
)

// StaleOtherReport is a report of an entry at another commit that found
// otherwise than its verdict.
type StaleOtherReport struct {
	Commit      string `json:"commit"`
	CommittedAt string `json:"committedAt,omitempty"`
	Branch      string `json:"branch,omitempty"`
	Reporter    string `json:"reporter"`
	ReportedAt  string `json:"reportedAt"`
	Version     int64  `json:"version"`
	// Stale is the number of stale references it found (0: every
	// reference held).
	Stale    int    `json:"stale"`
	Standing string `json:"standing"`
}
