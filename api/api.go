// Package api holds the wire types of the team memory protocol
// (spec/protocol.md): request and response bodies, the error envelope, the
// paths and the header helpers shared by the server's HTTP layer and the Go
// client. It imports only the standard library.
package api

import "encoding/json"

// Paths of the protocol's resources.
const (
	PathTeamMemory      = "/api/claude_code/team_memory"
	PathTeamMemoryAlias = "/api/team_memory"
	PathEvents          = PathTeamMemory + "/events"
	PathHistory         = PathTeamMemory + "/history"
	PathRevision        = PathTeamMemory + "/revision"
	PathRepos           = "/api/v1/repos"
	PathActivity        = "/api/v1/activity"
	PathServer          = "/api/v1/server"
	PathWhoami          = "/api/v1/whoami"
	PathSeen            = "/api/v1/seen"
	PathSearch          = "/api/v1/search"
	PathBlame           = "/api/v1/blame"
	PathAudit           = "/api/v1/audit"
	PathHealthz         = "/healthz"
	PathReadyz          = "/readyz"
	PathMetrics         = "/metrics"
)

// HeaderRequestID carries the request id in requests and responses.
const HeaderRequestID = "X-Request-ID"

// HeaderServerID carries the server's identity (ServerInfo.ServerID) in
// every response.
const HeaderServerID = "Teammem-Server-Id"

// Headers a teammem agent sends with a PUT to say what it is doing and
// where: recorded in the version's Provenance, bounded and checked, never
// used for authorization. A value the server does not keep is refused
// (400 invalid_header). The stock client sends none of them.
const (
	// HeaderSurface narrows the surface of a PUT: "seed", "restore",
	// "consolidation" or "mcp" (teammem-agent's own MCP server); absent:
	// "agent".
	HeaderSurface = "Teammem-Surface"
	// HeaderMachine names the host the agent runs on (at most 128 bytes,
	// no control or bidirectional characters).
	HeaderMachine = "Teammem-Machine"
	// HeaderCommit is the checkout's HEAD commit at push time (7 to 64
	// lowercase hex digits).
	HeaderCommit = "Teammem-Commit"
)

// ServerInfo is the body of GET /api/v1/server.
type ServerInfo struct {
	// ServerID names the database the server keeps: made once, when the
	// database is created or migrated to it, and the same on every replica
	// sharing it, whatever URL the server is reached by.
	ServerID string `json:"serverId"`
}

// Whoami is the body of GET /api/v1/whoami: the caller as the server sees
// it. Subject is what revisions written with this credential are stamped
// with; Grants are "<repo-glob>:<read|write|admin>"; ExpiresAt (RFC 3339,
// UTC) is when the credential stops being accepted, absent when it does not
// expire.
type Whoami struct {
	Subject   string   `json:"subject"`
	Grants    []string `json:"grants"`
	ExpiresAt string   `json:"expiresAt,omitempty"`
}

// MaxSeenEntries is the largest number of entries one POST /api/v1/seen
// may ask about.
const MaxSeenEntries = 1000

// SeenRequest is the body of POST /api/v1/seen?repo=R: for each key, one
// checksum ("sha256:<hex>") to look for in the key's history.
type SeenRequest struct {
	Entries map[string]string `json:"entries"`
}

// SeenResponse is the body of a successful POST /api/v1/seen: for each key
// asked about whose history holds a revision with the checksum asked (the
// content put, or for a delete the content deleted), the newest such
// version. Keys whose history holds no such revision are left out.
type SeenResponse struct {
	Repo string           `json:"repo"`
	Seen map[string]int64 `json:"seen"`
}

// Content is the entries part of a full pull.
type Content struct {
	// Entries maps each live key to its content.
	Entries map[string]string `json:"entries"`
	// EntryChecksums maps each live key to "sha256:<hex>".
	EntryChecksums map[string]string `json:"entryChecksums"`
	// DeletedEntries maps each tombstoned key to its deletion time (Unix ms).
	DeletedEntries map[string]int64 `json:"deletedEntries"`
}

// TeamMemory is the body of GET ?repo=R (full pull or since=V).
type TeamMemory struct {
	OrganizationID string  `json:"organizationId"`
	Repo           string  `json:"repo"`
	Version        int64   `json:"version"`
	LastModified   string  `json:"lastModified"`
	Checksum       string  `json:"checksum"`
	Content        Content `json:"content"`
}

// Hashes is the body of GET ?repo=R&view=hashes.
type Hashes struct {
	Version        int64             `json:"version"`
	Checksum       string            `json:"checksum"`
	EntryChecksums map[string]string `json:"entryChecksums"`
	DeletedEntries map[string]int64  `json:"deletedEntries"`
}

// PutRequest is the body of PUT ?repo=R.
type PutRequest struct {
	Entries        map[string]string `json:"entries,omitempty"`
	SoftDeleteKeys []string          `json:"soft_delete_keys,omitempty"`
	// AllOrNothing (a teammem extension) applies nothing when an entry
	// would be skipped: the 200 response lists the skipped entries with
	// the current state, and changed and deleted are empty.
	AllOrNothing bool `json:"all_or_nothing,omitempty"`
}

// PutResponse is the body of a successful PUT.
type PutResponse struct {
	Checksum     string   `json:"checksum"`
	LastModified string   `json:"lastModified"`
	Version      int64    `json:"version"`
	Changed      []string `json:"changed"`
	Deleted      []string `json:"deleted"`
	// Skipped lists the entries left out of the push (protocol §4
	// "Per-entry refusals"), in key order, at most MaxSkippedListed of
	// them; absent when none was.
	Skipped []SkippedEntry `json:"skipped,omitempty"`
	// SkippedOmitted counts the entries left out beyond the first
	// MaxSkippedListed, which Skipped does not name; absent when 0. A
	// client that sees it cannot tell which of its other entries applied:
	// only Changed and Deleted are known, the rest must be pulled.
	SkippedOmitted int `json:"skippedOmitted,omitempty"`
	// Proposal is the open proposal that holds what a review policy kept
	// from landing (also named by the Teammem-Proposal header); absent
	// when everything landed. Checksum and Version are the reviewed state.
	Proposal *Proposal `json:"proposal,omitempty"`
}

// MaxSkippedListed bounds PutResponse.Skipped, so that the answer to a
// push stays small whatever the push holds.
const MaxSkippedListed = 100

// Reasons of a SkippedEntry.
const (
	SkipInvalidKey     = "invalid_key"     // the key fails ValidateKey
	SkipInvalidContent = "invalid_content" // not UTF-8 text, or holds NUL
	SkipEntryTooLarge  = "entry_too_large" // over the server's entry limit
	SkipSecretDetected = "secret_detected" // with RuleID and Label
	SkipKeyCollision   = "key_collision"   // with Existing
)

// SkippedEntry is one entry of a PUT the server left out while applying the
// rest. It never carries the entry's content.
type SkippedEntry struct {
	Key      string `json:"key"`
	Reason   string `json:"reason"`
	Message  string `json:"message"`
	RuleID   string `json:"rule_id,omitempty"`
	Label    string `json:"label,omitempty"`
	Existing string `json:"existing,omitempty"`
}

// Event types of the events stream.
const (
	EventChange = "change" // data: Event
	EventReset  = "reset"  // data: Reset
	// EventProposal tells a repository's reviewers, and a proposal's
	// author, of a proposal made, amended or decided (its state says
	// which). It carries no id: it is no version, and is not replayed.
	EventProposal = "proposal" // data: Proposal
)

// Reset is the data of `event: reset`: the stream cannot replay what the
// client missed (history was purged, the server's data was restored, or
// it is too far behind), so the client must pull in full; events after
// Version follow.
type Reset struct {
	Repo     string `json:"repo"`
	Version  int64  `json:"version"`
	Checksum string `json:"checksum"`
}

// Event is one change event of the events stream (data of `event: change`).
type Event struct {
	Repo     string   `json:"repo"`
	Version  int64    `json:"version"`
	Checksum string   `json:"checksum"`
	Changed  []string `json:"changed"`
	Deleted  []string `json:"deleted"`
	Author   string   `json:"author"`
	At       string   `json:"at"`
	// Provenance is the version's; absent from servers before it was
	// recorded.
	Provenance *Provenance `json:"provenance,omitempty"`
}

// Provenance says who made a version and through what, stamped by the
// server: the subject and credential from the verified token (or web UI
// session), the surface from the route (narrowed by Teammem-Surface), the
// client from the User-Agent or the MCP client's clientInfo, the machine
// and commit from the agent's headers. A field nothing was recorded for
// says "unknown" (versions written before provenance was recorded);
// DisplayName, Client, Machine and Commit are absent when not sent.
type Provenance struct {
	Subject     string `json:"subject"`
	DisplayName string `json:"displayName,omitempty"`
	// Credential names the credential, never holds it: "token:<id>",
	// "oidc:<id>", "session:<id>", "none" (no authentication) or
	// "unknown".
	Credential string `json:"credential"`
	// Surface is one of "agent", "mcp", "rest", "web", "seed",
	// "restore", "consolidation" (an agent's consolidation, a tidy's
	// proposal), "unknown".
	Surface string `json:"surface"`
	Client  string `json:"client,omitempty"`
	Machine string `json:"machine,omitempty"`
	Commit  string `json:"commit,omitempty"`
	// ApprovedBy and Proposal name, on the version that applied an
	// approved proposal, the reviewer who approved it and the proposal;
	// the rest is the proposal's author's.
	ApprovedBy string `json:"approvedBy,omitempty"`
	Proposal   int64  `json:"proposal,omitempty"`
}

// Op values of a revision.
const (
	OpPut    = "put"
	OpDelete = "delete"
)

// Revision is one entry of a key's history. RestoreOf, on a put that
// brought back the content of an earlier version of the key (a restore),
// is that version.
type Revision struct {
	Version   int64  `json:"version"`
	Op        string `json:"op"`
	Checksum  string `json:"checksum"`
	Size      int64  `json:"size"`
	Author    string `json:"author"`
	At        string `json:"at"`
	RestoreOf int64  `json:"restoreOf,omitempty"`
	// Provenance is the version's; absent from servers before it was
	// recorded.
	Provenance *Provenance `json:"provenance,omitempty"`
}

// History is the body of GET .../history.
type History struct {
	Repo      string     `json:"repo"`
	Key       string     `json:"key"`
	Revisions []Revision `json:"revisions"`
}

// RevisionContent is the body of GET .../revision.
type RevisionContent struct {
	Repo     string `json:"repo"`
	Key      string `json:"key"`
	Version  int64  `json:"version"`
	Op       string `json:"op"`
	Checksum string `json:"checksum"`
	Author   string `json:"author"`
	At       string `json:"at"`
	Content  string `json:"content"`
	// Provenance is the version's; absent from servers before it was
	// recorded.
	Provenance *Provenance `json:"provenance,omitempty"`
}

// Blame is the body of GET /api/v1/blame?repo=R&key=K[&version=V]: every
// line of the key's content at its revision Version (the newest at or
// before the version asked for; a delete has no lines), each with the
// version of the revision that introduced it, and those revisions, oldest
// first, with their provenance.
type Blame struct {
	Repo      string          `json:"repo"`
	Key       string          `json:"key"`
	Version   int64           `json:"version"`
	Op        string          `json:"op"`
	Lines     []BlameLine     `json:"lines"`
	Revisions []BlameRevision `json:"revisions"`
}

// BlameLine is one line of a Blame: its text without the line break, and
// the version of the revision that introduced it.
type BlameLine struct {
	Text    string `json:"text"`
	Version int64  `json:"version"`
}

// BlameRevision is a revision that introduced lines of a Blame.
type BlameRevision struct {
	Version    int64      `json:"version"`
	Author     string     `json:"author"`
	At         string     `json:"at"`
	Provenance Provenance `json:"provenance"`
}

// RepoInfo is one repository in GET /api/v1/repos.
type RepoInfo struct {
	Repo         string `json:"repo"`
	Version      int64  `json:"version"`
	Entries      int    `json:"entries"`
	Bytes        int64  `json:"bytes"`
	LastModified string `json:"lastModified"`
}

// RepoList is the body of GET /api/v1/repos.
type RepoList struct {
	Repos []RepoInfo `json:"repos"`
}

// ActivityItem is one version in GET /api/v1/activity. RestoreOf maps
// each changed key that got back the content of an earlier version of it
// (a restore) to that version.
type ActivityItem struct {
	Version   int64            `json:"version"`
	At        string           `json:"at"`
	Author    string           `json:"author"`
	Changed   []string         `json:"changed"`
	Deleted   []string         `json:"deleted"`
	RestoreOf map[string]int64 `json:"restoreOf,omitempty"`
	// Provenance is the version's; absent from servers before it was
	// recorded.
	Provenance *Provenance `json:"provenance,omitempty"`
}

// Activity is the body of GET /api/v1/activity: versions newest first.
// Next, when not nil, is the before of the next page.
type Activity struct {
	Repo  string         `json:"repo"`
	Items []ActivityItem `json:"items"`
	Next  *int64         `json:"next"`
}

// SearchResults is the body of GET /api/v1/search: live entries best
// first. Next, when not nil, is the cursor of the next page (pass it as
// cursor with the same q and repo).
type SearchResults struct {
	Results []SearchResult `json:"results"`
	Next    *string        `json:"next"`
}

// SearchResult is one entry matching a search. Score orders the results
// of one query (higher is better) and means nothing across queries.
type SearchResult struct {
	Repo    string  `json:"repo"`
	Key     string  `json:"key"`
	Version int64   `json:"version"`
	Score   float64 `json:"score"`
	Snippet Snippet `json:"snippet"`
}

// Snippet is a plain-text excerpt of an entry around its first match;
// Matches are the [start, end) offsets of each match in Text, counted in
// Unicode code points.
type Snippet struct {
	Text    string   `json:"text"`
	Matches [][2]int `json:"matches"`
}

// Health is the body of /healthz and /readyz.
type Health struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// AuditPage is a page of a repository's audit chain: its entries, each
// with its number, time, the hash of the entry before and its own
// (lowercase hex), and its record as the chain hashed it. Next is the
// number to pass as after for the next page, 0 when this page is the
// last. An admin of the repository reads every entry; anyone else who can
// read it, only their own acts.
type AuditPage struct {
	Repo    string       `json:"repo"`
	Entries []AuditEntry `json:"entries"`
	Next    int64        `json:"next"`
}

// AuditEntry is one entry of an AuditPage.
type AuditEntry struct {
	Seq    int64           `json:"seq"`
	At     string          `json:"at"`
	Prev   string          `json:"prev"`
	Hash   string          `json:"hash"`
	Record json.RawMessage `json:"record"`
}
