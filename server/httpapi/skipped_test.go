package httpapi_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestOneBadEntryNeverRefusesThePush replays five scenarios in which one
// bad entry would stop the stock client syncing: each bad entry is left
// out and listed in skipped, ok.md beside it is applied, and the answer is
// 200.
func TestOneBadEntryNeverRefusesThePush(t *testing.T) {
	var logs bytes.Buffer
	ts := newTestServer(t, servertest.Options{Limits: serverLimits(1000, 100, 1<<20, 1<<20),
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	webhook := "https://hooks.slack.com/services/T" + randomAlnum(10) + "/B" + randomAlnum(10) + "/" + randomAlnum(24)
	tests := []struct {
		name    string
		entries map[string]string
		seed    map[string]string
		want    []api.SkippedEntry // Message checked apart
		applied []string
	}{
		{"entry over the entry limit", map[string]string{"big.md": strings.Repeat("x", 101), "ok.md": "1"}, nil,
			[]api.SkippedEntry{{Key: "big.md", Reason: api.SkipEntryTooLarge}}, []string{"ok.md"}},
		{"names the stock client syncs", map[string]string{".trash/old.md": "a", "🚀 launch.md": "b", "it’s done.md": "c",
			"50% done.md": "d", "cost $5.md": "e", "~draft.md": "f", "aux.md": "g", "notes: q3.md": "h", "ok.md": "2"}, nil,
			[]api.SkippedEntry{{Key: "aux.md", Reason: api.SkipInvalidKey}, {Key: "notes: q3.md", Reason: api.SkipInvalidKey}},
			[]string{".trash/old.md", "50% done.md", "cost $5.md", "it’s done.md", "ok.md", "~draft.md", "🚀 launch.md"}},
		{"case twins in one push", map[string]string{"Notes.md": "N", "notes.md": "n", "ok.md": "3"}, nil,
			[]api.SkippedEntry{{Key: "notes.md", Reason: api.SkipKeyCollision, Existing: "Notes.md"}}, []string{"Notes.md", "ok.md"}},
		{"case twin of a live key", map[string]string{"memory.md": "m", "ok.md": "4"}, map[string]string{"MEMORY.md": "M"},
			[]api.SkippedEntry{{Key: "memory.md", Reason: api.SkipKeyCollision, Existing: "MEMORY.md"}}, []string{"ok.md"}},
		{"a credential the stock client does not know", map[string]string{"hooks.md": "post to " + webhook + "\n", "ok.md": "5"}, nil,
			[]api.SkippedEntry{{Key: "hooks.md", Reason: api.SkipSecretDetected, RuleID: "slack-webhook-url"}}, []string{"ok.md"}},
		{"content with a lone surrogate", nil, nil,
			[]api.SkippedEntry{{Key: "bad.md", Reason: api.SkipInvalidContent}}, []string{"ok.md"}},
		{"content with NUL", map[string]string{"zero.md": "a\x00b", "ok.md": "7"}, nil,
			[]api.SkippedEntry{{Key: "zero.md", Reason: api.SkipInvalidContent}}, []string{"ok.md"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := "acme/r" + string(rune('a'+i))
			if tt.seed != nil {
				ts.Put(repo, tt.seed, nil, http.StatusOK)
			}
			var r servertest.Response
			if tt.entries == nil {
				r = ts.Do(http.MethodPut, api.PathTeamMemory+"?repo="+repo, ts.Admin, []byte(`{"entries":{"bad.md":"x\ud800y","ok.md":"6"}}`))
			} else {
				r = ts.Put(repo, tt.entries, nil, http.StatusOK)
			}
			res := servertest.Decode[api.PutResponse](t, r)
			for i := range res.Skipped {
				if res.Skipped[i].Message == "" {
					t.Errorf("skipped %q has no message", res.Skipped[i].Key)
				}
				if res.Skipped[i].Reason == api.SkipSecretDetected && res.Skipped[i].Label == "" {
					t.Errorf("skipped secret without a label: %+v", res.Skipped[i])
				}
				res.Skipped[i].Message, res.Skipped[i].Label = "", ""
			}
			if diff := cmp.Diff(tt.want, res.Skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.applied, res.Changed); diff != "" {
				t.Errorf("changed (-want +got):\n%s", diff)
			}
			got := servertest.Decode[api.TeamMemory](t, ts.Get("repo="+repo, http.StatusOK))
			for _, sk := range tt.want {
				if _, stored := got.Content.Entries[sk.Key]; stored && tt.seed[sk.Key] == "" {
					t.Errorf("skipped %q was stored", sk.Key)
				}
			}
			for _, k := range tt.applied {
				if _, ok := got.Content.Entries[k]; !ok {
					t.Errorf("%q was not applied", k)
				}
			}
			if strings.Contains(string(r.Body), webhook) || strings.Contains(logs.String(), webhook) {
				t.Error("the credential was echoed or logged")
			}
		})
	}
	for _, want := range []string{`"msg":"entry skipped"`, `"key":"aux.md","reason":"invalid_key"`, `"reason":"secret_detected"`, `"reason":"key_collision"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s", want)
		}
	}
	m := ts.Do(http.MethodGet, "/metrics", "", nil)
	for _, want := range []string{`teammem_entries_skipped_total{reason="invalid_key"} 2`, `teammem_entries_skipped_total{reason="key_collision"} 2`,
		`teammem_entries_skipped_total{reason="secret_detected"} 1`, `teammem_entries_skipped_total{reason="entry_too_large"} 1`,
		`teammem_entries_skipped_total{reason="invalid_content"} 2`} {
		if !strings.Contains(string(m.Body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestSkippedDeletesAndAllSkipped covers an invalid soft-delete key, a push
// whose every entry is skipped (200 with the current state, nothing
// changed), and that the precondition still holds for the rest.
func TestSkippedDeletesAndAllSkipped(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	first := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", map[string]string{"a.md": "a"}, nil, http.StatusOK))
	r := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", nil, []string{"../x.md", "a.md"}, http.StatusOK))
	if len(r.Skipped) != 1 || r.Skipped[0].Key != "../x.md" || r.Skipped[0].Reason != api.SkipInvalidKey || len(r.Deleted) != 1 {
		t.Errorf("invalid soft-delete key: %+v", r)
	}
	all := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", map[string]string{"CON.md": "x", "b:c.md": "y"}, nil, http.StatusOK))
	if len(all.Skipped) != 2 || len(all.Changed) != 0 || all.Version != r.Version || all.Checksum != r.Checksum {
		t.Errorf("all skipped: %+v; want the current state (version %d)", all, r.Version)
	}
	ts.Put("acme/api", map[string]string{"CON.md": "x", "ok.md": "y"}, nil, http.StatusPreconditionFailed, "If-Match", `"`+first.Checksum+`"`)
	never := servertest.Decode[api.PutResponse](t, ts.Put("acme/new", map[string]string{"aux.md": "x"}, nil, http.StatusOK))
	if never.Version != 0 || len(never.Skipped) != 1 {
		t.Errorf("all skipped on a new repo: %+v", never)
	}
	ts.Get("repo=acme/new", http.StatusNotFound)
	ts.Put("acme/api", map[string]string{"a.md": "x"}, []string{"a.md"}, http.StatusBadRequest)
}

// TestSkippedListIsBounded: a push with more refused entries and deletions
// than the answer may list is applied as usual (ok.md), the answer names
// the first api.MaxSkippedListed in key order and counts the rest; the log
// has one line per listed entry and one for the rest; metrics count all.
func TestSkippedListIsBounded(t *testing.T) {
	var logs bytes.Buffer
	ts := newTestServer(t, servertest.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	var body strings.Builder
	body.WriteString(`{"entries":{"ok.md":"fine"`)
	for i := range 400 {
		fmt.Fprintf(&body, ",\"bad/%03d.md\":\"\xff\"", i)
	}
	body.WriteString(`},"soft_delete_keys":[`)
	for i := range 300 {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `"../del-%03d.md"`, i)
	}
	body.WriteString(`]}`)
	r := ts.Do(http.MethodPut, api.PathTeamMemory+"?repo=acme/api", ts.Admin, []byte(body.String()))
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	res := servertest.Decode[api.PutResponse](t, r)
	if len(res.Skipped) != api.MaxSkippedListed || res.SkippedOmitted != 700-api.MaxSkippedListed {
		t.Fatalf("skipped %d listed, %d omitted; want %d and %d", len(res.Skipped), res.SkippedOmitted, api.MaxSkippedListed, 700-api.MaxSkippedListed)
	}
	if res.Skipped[0].Key != "../del-000.md" || !slices.Equal(res.Changed, []string{"ok.md"}) {
		t.Errorf("first skipped %q, changed %q; want ../del-000.md (key order) and ok.md", res.Skipped[0].Key, res.Changed)
	}
	if len(r.Body) > 30_000 {
		t.Errorf("answer is %d bytes for a %d-byte push", len(r.Body), body.Len())
	}
	if n := strings.Count(logs.String(), `"msg":"entry skipped"`); n != api.MaxSkippedListed {
		t.Errorf("%d entry-skipped log lines, want %d", n, api.MaxSkippedListed)
	}
	if !strings.Contains(logs.String(), `"msg":"more entries skipped, not listed"`) || !strings.Contains(logs.String(), `"count":600`) {
		t.Errorf("log lacks the line counting the rest:\n%.2000s", logs.String())
	}
	m := ts.Do(http.MethodGet, "/metrics", "", nil)
	if !strings.Contains(string(m.Body), `teammem_entries_skipped_total{reason="invalid_content"} 400`) {
		t.Error("metrics do not count every skipped entry")
	}
}

// TestPutOverEntryCountRefusedWhole: a push whose entries name more keys
// than the entry limit is the too-many-entries 413 the stock client clears
// after a local delete, whatever the entries hold, and changes nothing; at
// the limit it applies, its bad entries skipped.
func TestPutOverEntryCountRefusedWhole(t *testing.T) {
	ts := newTestServer(t, servertest.Options{Limits: serverLimits(10, 1000, 1<<20, 1<<20)})
	entries := map[string]string{"ok.md": "fine"}
	for i := range 9 {
		entries[fmt.Sprintf("bad:%d.md", i)] = "x"
	}
	res := servertest.Decode[api.PutResponse](t, ts.Put("acme/api", entries, nil, http.StatusOK))
	if len(res.Skipped) != 9 || len(res.Changed) != 1 {
		t.Fatalf("at the limit: %+v", res)
	}
	entries["bad:9.md"] = "x"
	r := ts.Put("acme/api", entries, nil, http.StatusRequestEntityTooLarge)
	e := r.ErrorBody(t)
	if e.Code() != api.CodeTooManyEntries || e.Details["max_entries"] != float64(10) || e.Details["received_entries"] != float64(11) {
		t.Errorf("over the count: %s", r.Body)
	}
	if got := servertest.Decode[api.TeamMemory](t, ts.Get("repo=acme/api", http.StatusOK)); got.Version != res.Version {
		t.Errorf("version %d after a refused push, want %d", got.Version, res.Version)
	}
}
