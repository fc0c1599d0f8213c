package agent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// side builds a one-key map, or nil for "-" (absent).
func side(key, sum string) map[string]string {
	if sum == "-" {
		return nil
	}
	return map[string]string{key: sum}
}

// TestReconcileTable has one named row per row of spec/agent.md §2.
func TestReconcileTable(t *testing.T) {
	const k = "notes/a.md"
	tests := []struct {
		name    string
		l, s, b string // "-" = absent
		tomb    bool
		lost    bool // the server lost its data (reseed)
		old     bool // L is a past revision of the key (no journal)
		want    Action
		reason  string
	}{
		{name: "L=S in sync", l: "x", s: "x", b: "old", want: ActionInSync},
		{name: "L=S new on both sides identical", l: "x", s: "x", b: "-", want: ActionInSync},
		{name: "L=S both deleted", l: "-", s: "-", b: "x", tomb: true, want: ActionInSync},
		{name: "L=B S≠B server changed: write S", l: "x", s: "y", b: "x", want: ActionWriteLocal},
		{name: "L=B S tombstone: delete locally", l: "x", s: "-", b: "x", tomb: true, want: ActionDeleteLocal},
		{name: "L=B S absent without tombstone: deleted there, tombstone purged: delete locally", l: "x", s: "-", b: "x", want: ActionDeleteLocal},
		{name: "L=B S absent, server lost its data (reseed): push", l: "x", s: "-", b: "x", lost: true, want: ActionPush, reason: "missing on the server"},
		{name: "L=B S tombstone, reseed: delete locally", l: "x", s: "-", b: "x", tomb: true, lost: true, want: ActionDeleteLocal},
		{name: "S=B L≠B local changed: push L", l: "y", s: "x", b: "x", want: ActionPush},
		{name: "S=B L absent: soft-delete", l: "-", s: "x", b: "x", want: ActionPushDelete},
		{name: "both changed: merge", l: "y", s: "z", b: "x", want: ActionMerge},
		{name: "new on server: write it", l: "-", s: "x", b: "-", want: ActionWriteLocal},
		{name: "new locally: push it", l: "x", s: "-", b: "-", want: ActionPush},
		{name: "new locally, old tombstone on server: push it", l: "x", s: "-", b: "-", tomb: true, want: ActionPush},
		{name: "new on both sides, different: merge", l: "x", s: "y", b: "-", want: ActionMerge},
		{name: "local deleted, server edited: restore", l: "-", s: "y", b: "x", want: ActionRestore},
		{name: "server deleted, local edited: resurrect", l: "y", s: "-", b: "x", tomb: true, want: ActionResurrect},
		{name: "tombstone purged, local edited: resurrect", l: "y", s: "-", b: "x", want: ActionResurrect},
		{name: "local deleted, tombstone purged: in sync", l: "-", s: "-", b: "x", want: ActionInSync},
		// No journal: the server's history tells an old copy from an edit.
		{name: "no base, L an old revision of a tombstoned key: delete locally", l: "x", s: "-", b: "-", tomb: true, old: true,
			want: ActionDeleteLocal, reason: "an old copy of a key the server deleted since"},
		{name: "no base, L an old revision of a changed key: write S", l: "x", s: "y", b: "-", old: true,
			want: ActionWriteLocal, reason: "an old copy of a key the server changed since"},
		{name: "no base, L an old revision, tombstone purged: push (today's rule)", l: "x", s: "-", b: "-", old: true, want: ActionPush},
		{name: "no base, L an old revision equal to S: in sync", l: "x", s: "x", b: "-", old: true, want: ActionInSync},
		{name: "with a base, L an old revision: the base decides (edit wins)", l: "y", s: "-", b: "x", tomb: true, old: true, want: ActionResurrect},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Local: side(k, tt.l), Server: side(k, tt.s), Base: side(k, tt.b), ServerLost: tt.lost}
			if tt.old {
				in.OldCopies = map[string]bool{k: true}
			}
			// Keep the folder non-empty so the empty-folder rail stays out of the way.
			if in.Local == nil {
				in.Local = map[string]string{"other.md": "o"}
				in.Server = merge(in.Server, map[string]string{"other.md": "o"})
				in.Base = merge(in.Base, map[string]string{"other.md": "o"})
			}
			if tt.tomb {
				in.Tombstones = map[string]bool{k: true}
			}
			p := Reconcile(in)
			got := stepFor(t, p, k)
			want := Step{Key: k, Action: tt.want, Local: abs(tt.l), Server: abs(tt.s), Base: abs(tt.b), Reason: tt.reason}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("step (-want +got):\n%s", diff)
			}
			if len(p.Warnings) != 0 {
				t.Errorf("unexpected warnings %q", p.Warnings)
			}
		})
	}
}

// TestReconcileSkips covers keys that are never synced.
func TestReconcileSkips(t *testing.T) {
	tests := []struct {
		name     string
		in       Input
		key      string
		warnWith string // "" = no warning
	}{
		{
			name:     "invalid server key is skipped with a quoted warning",
			in:       Input{Server: map[string]string{"../evil\x1b[31m.md": "x"}},
			key:      "../evil\x1b[31m.md",
			warnWith: `"../evil\x1b[31m.md"`,
		},
		{
			name:     "server key with a backslash",
			in:       Input{Server: map[string]string{`a\b.md`: "x"}},
			key:      `a\b.md`,
			warnWith: `"a\\b.md"`,
		},
		{
			name: "local file that may not be pushed is neither pushed nor overwritten",
			in: Input{Local: map[string]string{"b.md": "1"}, LocalSkipped: map[string]bool{"a.md": true},
				Server: map[string]string{"a.md": "new", "b.md": "1"}, Base: map[string]string{"a.md": "old", "b.md": "1"}},
			key: "a.md",
		},
		{
			name: "local conflict copy is skipped silently",
			in:   Input{Local: map[string]string{"a.conflict-20260101T000000Z-h.md": "x"}},
			key:  "a.conflict-20260101T000000Z-h.md",
		},
		{
			name:     "conflict copy on the server is skipped with a warning",
			in:       Input{Server: map[string]string{"a.conflict-20260101T000000Z-h.md": "x"}},
			key:      "a.conflict-20260101T000000Z-h.md",
			warnWith: `"a.conflict-20260101T000000Z-h.md"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Reconcile(tt.in)
			if got := stepFor(t, p, tt.key); got.Action != ActionSkip {
				t.Errorf("action = %v, want skip", got.Action)
			}
			switch {
			case tt.warnWith == "" && len(p.Warnings) != 0:
				t.Errorf("unexpected warnings %q", p.Warnings)
			case tt.warnWith != "" && (len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], tt.warnWith)):
				t.Errorf("warnings = %q, want one containing %s", p.Warnings, tt.warnWith)
			}
			for _, w := range p.Warnings {
				if strings.ContainsRune(w, 0x1b) {
					t.Errorf("warning holds a raw control character: %q", w)
				}
			}
		})
	}
}

// TestReconcileRails covers the safety rails.
func TestReconcileRails(t *testing.T) {
	tests := []struct {
		name        string
		live        int // keys on server and in base, all unchanged
		deleted     int // how many of them are gone locally
		unavailable bool
		rails       Rails
		wantDeletes int
		wantHeld    int
	}{
		{name: "folder suddenly empty", live: 2, deleted: 2, wantHeld: 2},
		{name: "folder unavailable", live: 10, deleted: 1, unavailable: true, wantHeld: 1},
		{name: "more than half of 3 or more", live: 4, deleted: 3, wantHeld: 3},
		{name: "mass delete allowed", live: 4, deleted: 3, rails: Rails{AllowMassDelete: true}, wantDeletes: 3},
		// The server also holds new.md, so live+1 entries are live there.
		{name: "exactly half is allowed", live: 5, deleted: 3, wantDeletes: 3},
		{name: "just over half is held", live: 6, deleted: 4, wantHeld: 4},
		{name: "fewer than 3 deletions are allowed", live: 3, deleted: 2, wantDeletes: 2},
		{name: "configurable share", live: 10, deleted: 3, rails: Rails{MaxDeleteShare: 0.2}, wantHeld: 3},
		{name: "under the configured share", live: 10, deleted: 3, rails: Rails{MaxDeleteShare: 0.3}, wantDeletes: 3},
		{name: "empty folder still receives the server", live: 0, deleted: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Local: map[string]string{}, Server: map[string]string{}, Base: map[string]string{},
				LocalUnavailable: tt.unavailable, Rails: tt.rails}
			for i := range tt.live {
				k := string(rune('a'+i)) + ".md"
				in.Server[k], in.Base[k] = "x", "x"
				if i >= tt.deleted {
					in.Local[k] = "x"
				}
			}
			in.Server["new.md"] = "n" // a server-side addition is always applied
			p := Reconcile(in)
			checkHeld(t, p, ActionPushDelete, tt.wantDeletes, tt.wantHeld)
			if got := p.Keys(ActionWriteLocal); !cmp.Equal(got, []string{"new.md"}) {
				t.Errorf("writes = %q, want [new.md]", got)
			}
		})
	}
}

// checkHeld checks that p has wantDeletes steps of action del, wantHeld
// held ones, and a warning exactly when some are held.
func checkHeld(t *testing.T, p Plan, del Action, wantDeletes, wantHeld int) {
	t.Helper()
	if got := len(p.Keys(del)); got != wantDeletes {
		t.Errorf("%s = %d, want %d", del, got, wantDeletes)
	}
	if got := len(p.Keys(ActionHold)); got != wantHeld {
		t.Errorf("held = %d, want %d", got, wantHeld)
	}
	if (wantHeld > 0) != (len(p.Warnings) > 0) {
		t.Errorf("warnings = %q, want some iff held", p.Warnings)
	}
}

// TestReconcileSilentServerDeletes: local files the server lacks without
// a tombstone are deleted locally only a few at a time (the server may
// have lost them, and the local files be the last copies), unless mass
// deletion is allowed; deletions the server recorded always apply.
func TestReconcileSilentServerDeletes(t *testing.T) {
	tests := []struct {
		name        string
		gone        int // of 4 synced keys, how many the server lacks
		tombstones  bool
		rails       Rails
		wantDeletes int
		wantHeld    int
	}{
		{name: "3 of 4 without tombstones are held", gone: 3, wantHeld: 3},
		{name: "with tombstones they are deleted", gone: 3, tombstones: true, wantDeletes: 3},
		{name: "allowed", gone: 3, rails: Rails{AllowMassDelete: true}, wantDeletes: 3},
		{name: "half is deleted", gone: 2, wantDeletes: 2},
		{name: "a higher share lets them through", gone: 3, rails: Rails{MaxDeleteShare: 0.9}, wantDeletes: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Local: map[string]string{}, Server: map[string]string{}, Base: map[string]string{},
				Tombstones: map[string]bool{}, Rails: tt.rails}
			for i := range 4 {
				k := string(rune('a'+i)) + ".md"
				in.Local[k], in.Base[k] = "x", "x"
				if i >= tt.gone {
					in.Server[k] = "x"
				} else if tt.tombstones {
					in.Tombstones[k] = true
				}
			}
			checkHeld(t, Reconcile(in), ActionDeleteLocal, tt.wantDeletes, tt.wantHeld)
		})
	}
}

// TestReconcileEmptyBaseDeletesNothing: a lost journal must never delete.
func TestReconcileEmptyBaseDeletesNothing(t *testing.T) {
	in := Input{
		Local:      map[string]string{"a.md": "1", "b.md": "2", "c.md": "3"},
		Server:     map[string]string{"b.md": "2", "c.md": "x", "d.md": "4"},
		Tombstones: map[string]bool{"e.md": true, "a.md": true},
	}
	p := Reconcile(in)
	got := map[string]Action{}
	for _, st := range p.Steps {
		got[st.Key] = st.Action
	}
	want := map[string]Action{"a.md": ActionPush, "b.md": ActionInSync, "c.md": ActionMerge,
		"d.md": ActionWriteLocal, "e.md": ActionInSync}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
}

func TestReconcileKeyOrder(t *testing.T) {
	in := Input{Local: map[string]string{"b.md": "1", "a/z.md": "1"}, Server: map[string]string{"a.md": "2"}}
	var keys []string
	for _, st := range Reconcile(in).Steps {
		keys = append(keys, st.Key)
	}
	if want := []string{"a.md", "a/z.md", "b.md"}; !cmp.Equal(keys, want) {
		t.Errorf("keys = %q, want %q", keys, want)
	}
}

func stepFor(t *testing.T, p Plan, key string) Step {
	t.Helper()
	for _, st := range p.Steps {
		if st.Key == key {
			return st
		}
	}
	t.Fatalf("no step for %q in %+v", key, p.Steps)
	return Step{}
}

func abs(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
