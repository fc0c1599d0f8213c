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
	Commit  string                      `json:"commit"`
	Entries map[string]StaleReportEntry `json:"entries"`
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
// the latest report of each live entry that has one, sorted by key.
type StaleReports struct {
	Repo    string             `json:"repo"`
	Reports []StaleEntryReport `json:"reports"`
}

// StaleEntryReport is the latest report of one entry.
type StaleEntryReport struct {
	Key string `json:"key"`
	// Version is the entry's version whose content was checked; Current
	// says it is still the live one.
	Version int64 `json:"version"`
	Current bool  `json:"current"`
	// Commit is the checkout's HEAD it was checked against.
	Commit string `json:"commit"`
	// Reporter is the token subject that reported it; ReportedAt when
	// (RFC 3339, UTC).
	Reporter   string         `json:"reporter"`
	ReportedAt string         `json:"reportedAt"`
	Findings   []StaleFinding `json:"findings"`
}
