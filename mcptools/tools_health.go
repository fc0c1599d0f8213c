package mcptools

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Health is a repository's findings at one version (see
// Backend.Health).
type Health struct {
	Repo      string
	Version   int64
	CheckedAt time.Time
	Findings  []HealthFinding
}

// HealthFinding is one finding of a health check.
type HealthFinding struct {
	Kind       string   `json:"kind" jsonschema:"duplicate, near-duplicate, conflicting-values, dangling-link, orphan-topic, index-over-budget, stale-reference or unused"`
	Keys       []string `json:"keys" jsonschema:"the memories it concerns"`
	Detail     string   `json:"detail"`
	Score      float64  `json:"score,omitempty" jsonschema:"a near-duplicate's similarity, 0 to 1"`
	Suggestion string   `json:"suggestion" jsonschema:"what would fix it"`
}

// HealthInput is the input of memory_health.
type HealthInput struct {
	Repo string `json:"repo,omitempty" jsonschema:"repository slug such as acme/api"`
}

func (in HealthInput) target() (string, string) { return in.Repo, "" }

// HealthOutput is the output of memory_health.
type HealthOutput struct {
	Repo      string          `json:"repo"`
	Version   int64           `json:"version"`
	CheckedAt string          `json:"checked_at"`
	Findings  []HealthFinding `json:"findings" jsonschema:"by kind"`
}

func (t *tools) addHealth(s *mcp.Server) {
	add(t, s, &mcp.Tool{Name: "memory_health", Annotations: readOnly,
		Description: "Check a repository's team memory for what keeps it from serving well: duplicates, near-duplicates, one setting given two values, index lines linking nothing, memories no index line links, an index past what the client loads, stale code references, memories nobody reads. Each finding names its memories and what would fix it; help the person fix them (read, merge, correct, archive with delete_memory)."}, t.health)
}

func (t *tools) health(ctx context.Context, in HealthInput) (HealthOutput, error) {
	repo, err := t.repo(in.Repo)
	if err != nil {
		return HealthOutput{}, err
	}
	h, err := t.b.Health(ctx, repo)
	if err != nil {
		return HealthOutput{}, err
	}
	out := HealthOutput{Repo: h.Repo, Version: h.Version, CheckedAt: timeText(h.CheckedAt), Findings: h.Findings}
	if out.Findings == nil {
		out.Findings = []HealthFinding{}
	}
	return out, nil
}
