package health

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// Tidy: the findings a machine can fix without judgement, fixed as one
// changeset for a person to review. Duplicates are folded into the first
// of their group (its index line kept, the others' lines pointed at it or
// dropped); dangling index lines are removed; orphans get an index line;
// the oldest index lines past the budget move into sub-indexes
// (MEMORY-<n>.md) that MEMORY.md links; unused topics are archived. A
// removed topic is a delete, which leaves a tombstone and its history:
// restore brings it back. Near-duplicates, conflicting values and stale
// references need a person and are not in a plan.

// Fixable are the kinds a plan fixes.
var Fixable = []string{KindDuplicate, KindDanglingLink, KindOrphanTopic, KindIndexOverBudget, KindUnused}

// Change is one key's change in a plan: its new content, or its delete
// (a tombstone). Note says why, for the key's history: a folded key's
// note names the topic it was folded into.
type Change struct {
	Key     string
	Content string
	Delete  bool
	Note    string
}

// TidyPlan is one changeset over a repository at version Base.
type TidyPlan struct {
	Repo    string
	Base    int64
	Changes []Change // sorted by key
	Fixes   []string // what it fixes, one sentence each
}

// Empty reports whether the plan changes nothing.
func (p TidyPlan) Empty() bool { return len(p.Changes) == 0 }

// Write is the plan as a store write (puts and deletes, sorted), for a
// reviewer that approves it or a test that applies it.
func (p TidyPlan) Write() server.Write {
	w := server.Write{Repo: p.Repo}
	for _, c := range p.Changes {
		if c.Delete {
			w.Deletes = append(w.Deletes, c.Key)
		} else {
			w.Puts = append(w.Puts, server.Put{Key: c.Key, Content: c.Content, Checksum: protocol.EntryChecksum([]byte(c.Content))})
		}
	}
	return w
}

// Proposer makes a proposal of a change set for review, applied only when
// a person approves it, whatever the repository's review policy:
// (*server.Service).Propose, the review of proposals. Errors: its.
type Proposer interface {
	Propose(ctx context.Context, p server.Principal, repo string, cs server.ChangeSet) (server.Proposal, error)
}

// ChangeSet is the plan as a change set to propose, against its base
// version, with the provenance of a tidy (the consolidation surface and
// client, the asker being the principal that proposes it) and each
// change's note.
func (p TidyPlan) ChangeSet(client string) server.ChangeSet {
	cs := server.ChangeSet{Changes: make(map[string]*string, len(p.Changes)), BaseVersion: p.Base,
		Provenance: server.Provenance{Surface: server.SurfaceConsolidation, Client: client}, Notes: map[string]string{}}
	for _, c := range p.Changes {
		if c.Note != "" {
			cs.Notes[c.Key] = server.CleanClient(c.Note) // fit to show, cut at 200 bytes
		}
		if c.Delete {
			cs.Changes[c.Key] = nil
		} else {
			cs.Changes[c.Key] = &c.Content
		}
	}
	return cs
}

// tidy is the state of one plan being made.
type tidy struct {
	in      Input
	live    map[string]server.Entry
	want    func(string) bool
	picked  map[string]bool   // the picked dangling links (index, missing) and orphans (key)
	gone    map[string]string // key → why it is deleted
	content map[string]string // index key → its new content
	fixes   []string
}

// Plan returns the changeset fixing r's findings of kinds (every Fixable
// kind when kinds is empty) in the repository in describes; r is
// Check(in). Applying it and checking again finds none of those kinds.
func Plan(in Input, r Report, kinds []string) TidyPlan {
	want := func(k string) bool {
		return slices.Contains(Fixable, k) && (len(kinds) == 0 || slices.Contains(kinds, k))
	}
	return plan(in, r, want, func(f Finding) bool { return want(f.Kind) })
}

// PlanFinding returns the changeset fixing the one finding of r whose ID
// is id: empty when there is none, or it is not of a Fixable kind.
func PlanFinding(in Input, r Report, id string) TidyPlan {
	i := slices.IndexFunc(r.Findings, func(f Finding) bool { return f.ID() == id })
	if i < 0 || !slices.Contains(Fixable, r.Findings[i].Kind) {
		return TidyPlan{Repo: in.Repo, Base: in.Version}
	}
	kind := r.Findings[i].Kind
	return plan(in, r, func(k string) bool { return k == kind }, func(g Finding) bool { return g.ID() == id })
}

// plan makes the plan fixing the findings pick selects, of the kinds want
// selects.
func plan(in Input, r Report, want func(string) bool, pick func(Finding) bool) TidyPlan {
	t := &tidy{in: in, live: map[string]server.Entry{}, gone: map[string]string{},
		content: map[string]string{}, want: want, picked: map[string]bool{}}
	for _, e := range in.Topics {
		t.live[e.Key] = e
	}
	for _, f := range r.Findings {
		if pick(f) {
			t.record(f)
		}
	}
	linkedBefore := t.linked()
	t.editIndexes()
	t.linkOrphans(linkedBefore)
	if t.want(KindIndexOverBudget) {
		t.fitBudget()
	}
	return t.result()
}

// record notes what a finding deletes.
func (t *tidy) record(f Finding) {
	if !t.want(f.Kind) {
		return
	}
	switch f.Kind {
	case KindDuplicate:
		for _, k := range f.Keys[1:] {
			t.gone[k] = "folded into " + f.Keys[0]
		}
		t.fixes = append(t.fixes, f.Suggestion)
	case KindUnused:
		t.gone[f.Keys[0]] = "archived: " + f.Detail
		t.fixes = append(t.fixes, f.Suggestion)
	case KindDanglingLink:
		t.picked[f.Keys[0]+"\x00"+f.Missing] = true
	case KindOrphanTopic:
		t.picked[f.Keys[0]] = true
	}
}

// indexKeys returns the live indexes, sorted, the root one first.
func (t *tidy) indexKeys() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(t.live)) {
		if IsIndex(k) && t.gone[k] == "" {
			out = append(out, k)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return boolCmp(b == RootIndex, a == RootIndex) })
	return out
}

// indexContent is an index's content as the plan has it so far.
func (t *tidy) indexContent(key string) string {
	if c, ok := t.content[key]; ok {
		return c
	}
	return t.live[key].Content
}

// linked returns the keys the indexes link as the plan has them so far.
func (t *tidy) linked() map[string]bool {
	out := map[string]bool{}
	for _, k := range t.indexKeys() {
		for _, l := range protocol.IndexLines(indexDir(k), t.indexContent(k)) {
			for _, lk := range l.Keys {
				out[lk] = true
			}
		}
	}
	return out
}

// indexDir is the folder an index's links are relative to.
func indexDir(key string) string {
	if d := strings.TrimSuffix(key, "/"+RootIndex); d != key {
		return d
	}
	return ""
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
