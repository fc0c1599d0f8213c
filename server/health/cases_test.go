package health_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
)

// kindCase is a repository that must give exactly the findings want of
// kind (each finding's keys); none for a fixture that must not trigger.
type kindCase struct {
	name  string
	kind  string
	files map[string]string
	stale map[string][]server.StaleFinding // key → the current report's findings
	reads map[string]time.Duration         // key → read that long ago
	// unused is the unused setting (0: off).
	unused time.Duration
	want   [][]string
}

// indexOf is a MEMORY.md linking each key.
func indexOf(keys ...string) string {
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "- [%s](%s) — about %s\n", k, k, strings.TrimSuffix(k, ".md"))
	}
	return b.String()
}

const header = `> Team memory: the lessons below were written by people on this team.
> Keep each one short, say why it matters, link the code it names,
> and never store credentials, tokens or customer data in a topic.
> Before you change a lesson, read the topics that link it, and ask in
> the team channel when in doubt about whether it still holds today.
> Every topic is synced to every teammate's checkout by teammem-agent.
`

const reworded1 = `When the CI runner runs out of disk, clear the docker build cache with
docker builder prune before retrying the pipeline; the cache grows past 40 GB
within a week on the shared runners.`

const reworded2 = `If the CI runner is out of disk, clear the docker build cache (docker builder
prune) before you retry the pipeline: on the shared runners the cache grows past
40 GB in a week.`

// bigIndex is an index of n lines of width bytes each.
func bigIndex(n, width int) string {
	var b strings.Builder
	for i := range n {
		line := fmt.Sprintf("- [t%d](t%d.md) ", i, i)
		fmt.Fprintf(&b, "%s%s\n", line, strings.Repeat("x", max(0, width-len(line)-1)))
	}
	return b.String()
}

var kindCases = []kindCase{
	{name: "same text reordered", kind: health.KindDuplicate, files: map[string]string{
		"a.md": "---\nname: Pool\ntype: project\n---\nUse  PgBouncer\nin transaction mode.\n",
		"b.md": "---\ntype: project\nname: pool\n---\n\nuse pgbouncer\n  in   transaction MODE.\n",
		"c.md": "Use PgBouncer in session mode.\n",
	}, want: [][]string{{"a.md", "b.md"}}},
	{name: "one word differs", kind: health.KindDuplicate, files: map[string]string{
		"a.md": "Use PgBouncer in transaction mode.\n",
		"b.md": "Use PgBouncer in session mode.\n",
	}},
	{name: "lesson reworded", kind: health.KindNearDuplicate, files: map[string]string{
		"ci-disk.md":   "# CI disk\n\n" + reworded1 + "\n",
		"ci-space.md":  "# Out of disk on CI\n\n" + reworded2 + "\n",
		"unrelated.md": "# Releases\n\nTag releases from main only after the changelog is merged.\n",
	}, want: [][]string{{"ci-disk.md", "ci-space.md"}}},
	{name: "shared boilerplate header", kind: health.KindNearDuplicate, files: map[string]string{
		"deploy.md": header + "\nDeploys go out on Tuesdays after the staging soak passes.\n",
		"oncall.md": header + "\nThe pager rotates on Mondays; swap shifts in the rota sheet.\n",
	}},
	{name: "two values", kind: health.KindConflictingValues, files: map[string]string{
		"db.md":      "Set `pool_max_conns` to 16 for the API.\n",
		"tuning.md":  "- pool_max_conns: 32\n",
		"http.md":    "timeout: 30s\n",
		"client.md":  "Our client settings:\n\ntimeout: 5 s\n",
		"same.md":    "retries = 3\n",
		"same-2.md":  "the retries is 3\n",
		"history.md": "We raised `max_workers` to 8, then `max_workers` to 12.\n",
		"workers.md": "max_workers = 4\n",
	}, want: [][]string{{"db.md", "tuning.md"}, {"client.md", "http.md"}}},
	{name: "values in a code block", kind: health.KindConflictingValues, files: map[string]string{
		"db.md":     "Pick one:\n\n```ini\npool_max_conns = 16\npool_max_conns = 32\n```\n",
		"tuning.md": "Set `pool_max_conns` to 16.\n\n~~~\npool_max_conns: 64\n~~~\n",
		"dates.md":  "released: 2024-01-02\n",
		"dates2.md": "released: 2025-03-04\n",
	}},
	{name: "link to nothing", kind: health.KindDanglingLink, files: map[string]string{
		"MEMORY.md": indexOf("a.md", "gone.md"),
		"a.md":      "A.\n",
	}, want: [][]string{{"MEMORY.md"}}},
	{name: "every link found", kind: health.KindDanglingLink, files: map[string]string{
		"MEMORY.md":   indexOf("a.md", "MEMORY-2.md") + "```\n- [x](example.md)\n```\n- [web](https://example.com/x.md)\n",
		"MEMORY-2.md": indexOf("b.md"),
		"a.md":        "A.\n", "b.md": "B.\n",
	}},
	{name: "topic nobody links", kind: health.KindOrphanTopic, files: map[string]string{
		"MEMORY.md": indexOf("a.md"),
		"a.md":      "A.\n", "lost.md": "Lost.\n", "MEMORY-3.md": indexOf("a.md"),
	}, want: [][]string{{"MEMORY-3.md"}, {"lost.md"}}},
	{name: "linked directly or by a sub-index", kind: health.KindOrphanTopic, files: map[string]string{
		"MEMORY.md":   indexOf("a.md", "MEMORY-2.md"),
		"MEMORY-2.md": indexOf("old/b.md"),
		"a.md":        "A.\n", "old/b.md": "B.\n",
	}},
	{name: "linked by its folder's index", kind: health.KindOrphanTopic, files: map[string]string{
		"MEMORY.md":     indexOf("old/MEMORY.md"),
		"old/MEMORY.md": "- [b](b.md) — in its folder\n",
		"old/b.md":      "B.\n",
	}},
	{name: "a folder's index links relative to it", kind: health.KindDanglingLink, files: map[string]string{
		"MEMORY.md":     indexOf("old/MEMORY.md"),
		"old/MEMORY.md": "- [b](b.md)\n- [c](../c.md)\n",
		"old/b.md":      "B.\n",
	}, want: [][]string{{"old/MEMORY.md"}}},
	{name: "index too long", kind: health.KindIndexOverBudget, files: map[string]string{
		"MEMORY.md": bigIndex(201, 40),
	}, want: [][]string{{"MEMORY.md"}}},
	{name: "index too wide", kind: health.KindIndexOverBudget, files: map[string]string{
		"MEMORY.md": bigIndex(130, 200),
	}, want: [][]string{{"MEMORY.md"}}},
	{name: "index at its budget", kind: health.KindIndexOverBudget, files: map[string]string{
		"MEMORY.md": bigIndex(200, 120) + "\n\n\n",
	}},
	{name: "stale reference", kind: health.KindStaleReference, files: map[string]string{
		"a.md": "See `client/push.go`.\n", "b.md": "See `client/pull.go`.\n",
	}, stale: map[string][]server.StaleFinding{
		"a.md": {{Reference: "client/push.go", Reason: server.StaleMissing}},
		"b.md": nil,
	}, want: [][]string{{"a.md"}}},
	{name: "no stale reference", kind: health.KindStaleReference, files: map[string]string{
		"a.md": "See `client/push.go`.\n",
	}, stale: map[string][]server.StaleFinding{"a.md": nil}},
	{name: "unread for long", kind: health.KindUnused, unused: 30 * 24 * time.Hour, files: map[string]string{
		"MEMORY.md": indexOf("old.md", "fresh.md"),
		"old.md":    "Old.\n", "fresh.md": "Fresh.\n",
	}, reads: map[string]time.Duration{"old.md": 40 * 24 * time.Hour, "fresh.md": 2 * 24 * time.Hour},
		want: [][]string{{"old.md"}}},
	{name: "unused check off", kind: health.KindUnused, files: map[string]string{
		"old.md": "Old.\n",
	}, reads: map[string]time.Duration{"old.md": 400 * 24 * time.Hour}},
}
