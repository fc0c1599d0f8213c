package health_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server/health"
)

// applyPlan returns the files of c after the plan.
func applyPlan(c kindCase, p health.TidyPlan) map[string]string {
	out := map[string]string{}
	for k, v := range c.files {
		out[k] = v
	}
	for _, ch := range p.Changes {
		if ch.Delete {
			delete(out, ch.Key)
		} else {
			out[ch.Key] = ch.Content
		}
	}
	return out
}

// planOf is the plan of c's findings of kinds.
func planOf(c kindCase, kinds ...string) health.TidyPlan {
	in := input(c)
	return health.Plan(in, health.Check(in), kinds)
}

func TestPlanOnlyKindsAsked(t *testing.T) {
	c := messyCase()
	p := planOf(c, health.KindDanglingLink)
	if len(p.Changes) != 1 || p.Changes[0].Key != health.RootIndex {
		t.Fatalf("changes %+v; want MEMORY.md alone", p.Changes)
	}
	after := applyPlan(c, p)
	if strings.Contains(after[health.RootIndex], "gone.md") || !strings.Contains(after[health.RootIndex], "(pool-copy.md)") {
		t.Errorf("MEMORY.md after:\n%s", after[health.RootIndex])
	}
	if p := planOf(c, health.KindNearDuplicate, health.KindConflictingValues, health.KindStaleReference); !p.Empty() {
		t.Errorf("a plan of what needs a person changes %+v", p.Changes)
	}
}

func TestPlanBudgetKeepsEveryTopicLinked(t *testing.T) {
	c := kindCase{files: map[string]string{"MEMORY-2.md": "- [x](x.md)\n", "x.md": "X.\n"}}
	var index strings.Builder
	index.WriteString("# Index\n- [older](MEMORY-2.md)\n")
	for i := range 700 {
		k := fmt.Sprintf("t%03d.md", i)
		c.files[k] = fmt.Sprintf("Topic %d\n", i)
		index.WriteString("- [" + k + "](" + k + ") — " + strings.Repeat("words ", 10) + "\n")
	}
	c.files[health.RootIndex] = index.String()
	after := applyPlan(c, planOf(c))
	loaded, total := health.LoadedLines(after[health.RootIndex])
	if loaded != total {
		t.Errorf("MEMORY.md still loads %d of %d lines", loaded, total)
	}
	if _, ok := after["MEMORY-2.md"]; !ok || after["MEMORY-2.md"] != c.files["MEMORY-2.md"] {
		t.Errorf("the existing sub-index changed")
	}
	linked := map[string]bool{}
	for k, v := range after {
		if health.IsIndex(k) {
			for _, l := range protocol.IndexLines("", v) {
				for _, lk := range l.Keys {
					linked[lk] = true
				}
			}
		}
	}
	for k := range c.files {
		if k != health.RootIndex && !linked[k] {
			t.Errorf("%s is no longer linked", k)
		}
	}
	if r := health.Check(input(kindCase{files: after})); r.Count()[health.KindIndexOverBudget]+r.Count()[health.KindOrphanTopic] != 0 {
		t.Errorf("after the plan: %+v", r.Findings)
	}
}

func TestPlanOrphanLineHostileTitle(t *testing.T) {
	c := kindCase{files: map[string]string{
		health.RootIndex: "",
		"a (b) [c].md":   "---\nname: \"x](evil.md) [y\"\ndescription: \"line\\u2028two\"\n---\nBody.\n",
		"~/x% #1.md":     "Body.\n",
	}}
	p := planOf(c, health.KindOrphanTopic)
	after := applyPlan(c, p)
	var got []string
	for _, l := range protocol.IndexLines("", after[health.RootIndex]) {
		got = append(got, l.Keys...)
	}
	slices.Sort(got)
	if want := []string{"a (b) [c].md", "~/x% #1.md"}; !slices.Equal(got, want) {
		t.Errorf("linked %q; want %q\n%s", got, want, after[health.RootIndex])
	}
}

func TestPlanFindingFixesThatAlone(t *testing.T) {
	c := messyCase()
	in := input(c)
	r := health.Check(in)
	var id string
	for _, f := range r.Findings {
		if f.Kind == health.KindOrphanTopic && f.Keys[0] == "lost.md" {
			id = f.ID()
		}
	}
	p := health.PlanFinding(in, r, id)
	if len(p.Changes) != 1 || p.Changes[0].Key != health.RootIndex {
		t.Fatalf("changes %+v", p.Changes)
	}
	added := strings.TrimPrefix(p.Changes[0].Content, c.files[health.RootIndex])
	if added != "- [Lost lesson](lost.md) — nobody links this\n" {
		t.Errorf("added %q; want the line of lost.md alone", added)
	}
	for _, f := range r.Findings {
		if !slices.Contains(health.Fixable, f.Kind) {
			if q := health.PlanFinding(in, r, f.ID()); !q.Empty() {
				t.Errorf("a %s finding planned %+v", f.Kind, q.Changes)
			}
		}
	}
	if q := health.PlanFinding(in, r, "nope"); !q.Empty() {
		t.Errorf("an unknown finding planned %+v", q.Changes)
	}
}
