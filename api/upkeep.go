package api

// PathHealth is where a repository's health is read:
// GET /api/v1/health?repo=R (a read grant).
const PathHealth = "/api/v1/health"

// PathTidy is where a tidy of a repository is proposed:
// POST /api/v1/tidy?repo=R[&kinds=K,K...] (a write grant) makes one
// proposal for review and writes nothing itself; ?dry_run=1 answers the
// plan without proposing it.
const PathTidy = "/api/v1/tidy"

// HealthReport is the body of GET /api/v1/health: the repository's
// findings at one version.
type HealthReport struct {
	Repo      string          `json:"repo"`
	Version   int64           `json:"version"`
	CheckedAt string          `json:"checked_at"` // RFC 3339
	Findings  []HealthFinding `json:"findings"`
}

// HealthFinding is one finding: its kind (duplicate, near-duplicate,
// conflicting-values, dangling-link, orphan-topic, index-over-budget,
// stale-reference, unused), the topics it concerns, what was found, a
// near-duplicate's score (0..1) and what would fix it.
type HealthFinding struct {
	ID         string   `json:"id"` // POST /api/v1/tidy's finding
	Kind       string   `json:"kind"`
	Keys       []string `json:"keys"`
	Detail     string   `json:"detail"`
	Score      *float64 `json:"score,omitempty"`
	Suggestion string   `json:"suggestion"`
}

// TidyChange is one key's change in a tidy plan: its new content, or a
// delete (a tombstone restore brings back), with why.
type TidyChange struct {
	Key     string `json:"key"`
	Delete  bool   `json:"delete,omitempty"`
	Content string `json:"content,omitempty"`
	Note    string `json:"note"`
}

// TidyResponse is the body of POST /api/v1/tidy: the proposal made (its
// id; "" for a dry run or an empty plan) and the plan over the version
// read.
type TidyResponse struct {
	Repo     string       `json:"repo"`
	Base     int64        `json:"base"`
	Proposal string       `json:"proposal,omitempty"`
	Changes  []TidyChange `json:"changes"`
	Fixes    []string     `json:"fixes"`
}
