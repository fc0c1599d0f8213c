package storetest

import (
	"testing"

	"github.com/teammem/teammem/server"
)

// testSearchStems: a word finds the other forms of its stem in prose, in a
// title and in a key's file name; an identifier is found by its exact
// parts only; the frontmatter's syntax is no word of the body.
func testSearchStems(t *testing.T, s server.Store) {
	apply(t, s, write("acme/web", at(0), contents{
		"ops/deploys.md":  "---\nname: Deploys\ndescription: How we ship releases\n---\nRun make release on Fridays.\n",
		"ops/rollback.md": "Rolling back: we deployed twice, then rolled back.\n",
		"db.md":           "---\nname: db\ndescription: Postgres pooling\n---\nSet pool_max_conns to 16.\n",
		"conn.md":         "One conn per worker.\n",
	}))
	for _, q := range []string{"deploy", "Deploys", "deploying", "DEPLOYED"} {
		wantHits(t, search(t, s, q), "acme/web:ops/deploys.md", "acme/web:ops/rollback.md")
		wantHits(t, search(t, s, q, "acme/web"), "acme/web:ops/deploys.md", "acme/web:ops/rollback.md")
	}
	wantHits(t, search(t, s, "shipping release"), "acme/web:ops/deploys.md")
	wantHits(t, search(t, s, `"rolled back"`), "acme/web:ops/rollback.md")
	wantHits(t, search(t, s, `"rolling backs"`), "acme/web:ops/rollback.md")
	wantHits(t, search(t, s, "deploys.md"), "acme/web:ops/deploys.md")
	// An identifier's parts stay as written: "conns" finds pool_max_conns
	// and the word "conn" (the same stem in prose), "conn" only the word.
	wantHits(t, search(t, s, "pool_max_conns"), "acme/web:db.md")
	wantHits(t, search(t, s, "conns"), "acme/web:conn.md", "acme/web:db.md")
	wantHits(t, search(t, s, "conn"), "acme/web:conn.md")
	wantHits(t, search(t, s, "pool_max_conn"))
	// The frontmatter's keys are no words of the entry.
	wantHits(t, search(t, s, "description"))
	wantHits(t, search(t, s, "name"))
}

// testSearchTiers: the name ranks above the description and an index line,
// which rank above the body; each tier newest first. Both stores give the
// same order and tiers, and every hit's tier is one of the three.
func testSearchTiers(t *testing.T, s server.Store) {
	apply(t, s, write("acme/web", at(0), contents{
		"canary.md":      "Nothing here.",
		"rollout.md":     "---\nname: Rollout\ndescription: the canary stage\n---\nSteps.",
		"body-old.md":    "We watch the canary for an hour.",
		"linked.md":      "Steps of the release.",
		"named-fm.md":    "---\nname: Canary checks\n---\nWhat to look at.",
		"description.md": "---\nname: Release\ndescription: canaries first\n---\nx",
	}))
	apply(t, s, write("acme/web", at(1), contents{
		"body-new.md": "Canaries are cheap.",
		"MEMORY.md":   "- [Linked](linked.md) — canary releases\n",
	}))
	want := []struct {
		key  string
		tier int
	}{
		{"canary.md", server.SearchTierName}, {"named-fm.md", server.SearchTierName},
		{"description.md", server.SearchTierTitle}, {"linked.md", server.SearchTierTitle}, {"rollout.md", server.SearchTierTitle},
		{"MEMORY.md", server.SearchTierBody}, {"body-new.md", server.SearchTierBody}, {"body-old.md", server.SearchTierBody},
	}
	for _, repos := range [][]string{nil, {"acme/web"}} {
		hits := searchHits(t, s, "canary", 0, repos...)
		if len(hits) != len(want) {
			t.Fatalf("%d hits %+v, want %d", len(hits), hits, len(want))
		}
		for i, h := range hits {
			if h.Key != want[i].key || h.Tier != want[i].tier {
				t.Errorf("hit %d: %s in tier %d, want %s in tier %d", i, h.Key, h.Tier, want[i].key, want[i].tier)
			}
			if i > 0 && h.Tier == hits[i-1].Tier && h.UpdatedAt.After(hits[i-1].UpdatedAt) {
				t.Errorf("hit %d: %s written %v, after the hit before it", i, h.Key, h.UpdatedAt)
			}
		}
		if !hits[0].UpdatedAt.Equal(at(0)) || !hits[5].UpdatedAt.Equal(at(1)) {
			t.Errorf("written at %v and %v, want %v and %v", hits[0].UpdatedAt, hits[5].UpdatedAt, at(0), at(1))
		}
	}
}
