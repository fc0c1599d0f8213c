package httpapi_test

import (
	"fmt"
	"maps"
	"net/http"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestRestoreOf: history and activity name the version a restore brought
// back (a put of an earlier put's content), on every page, however the
// pages cut the key's history; other revisions name none, and the
// responses still match openapi.yaml.
func TestRestoreOf(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	const repo = "acme/api"
	ts.Put(repo, map[string]string{"a.md": "one", "b.md": "b"}, nil, http.StatusOK) // v1
	ts.Put(repo, map[string]string{"a.md": "two"}, nil, http.StatusOK)              // v2
	ts.Put(repo, map[string]string{"a.md": "one"}, nil, http.StatusOK)              // v3: restore of 1
	ts.Put(repo, nil, []string{"a.md"}, http.StatusOK)                              // v4
	ts.Put(repo, map[string]string{"a.md": "one"}, nil, http.StatusOK)              // v5: restore of 3
	ts.Put(repo, map[string]string{"a.md": "two", "b.md": "c"}, nil, http.StatusOK) // v6: a.md restore of 2

	history := func(query string) map[int64]int64 {
		t.Helper()
		h := servertest.Decode[api.History](t, ts.Do(http.MethodGet, api.PathHistory+"?repo="+repo+"&key=a.md"+query, ts.Admin, nil))
		got := map[int64]int64{}
		for _, r := range h.Revisions {
			got[r.Version] = r.RestoreOf
		}
		return got
	}
	for _, tt := range []struct {
		query string
		want  map[int64]int64
	}{
		{"", map[int64]int64{6: 2, 5: 3, 4: 0, 3: 1, 2: 0, 1: 0}},
		{"&limit=2", map[int64]int64{6: 2, 5: 3}},
		{"&limit=1&before=4", map[int64]int64{3: 1}},
		{"&limit=1&before=3", map[int64]int64{2: 0}},
	} {
		if got := history(tt.query); !maps.Equal(got, tt.want) {
			t.Errorf("history of a.md%s: restores %v; want %v", tt.query, got, tt.want)
		}
	}

	activity := func(query string) map[int64]map[string]int64 {
		t.Helper()
		a := servertest.Decode[api.Activity](t, ts.Do(http.MethodGet, api.PathActivity+"?repo="+repo+query, ts.Admin, nil))
		got := map[int64]map[string]int64{}
		for _, it := range a.Items {
			got[it.Version] = it.RestoreOf
		}
		return got
	}
	want := map[int64]map[string]int64{6: {"a.md": 2}, 5: {"a.md": 3}, 4: nil, 3: {"a.md": 1}, 2: nil, 1: nil}
	if got := activity(""); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("activity: restores %v; want %v", got, want)
	}
	for query, want := range map[string]map[int64]map[string]int64{
		"&limit=1&before=4": {3: {"a.md": 1}},
		"&limit=2&before=5": {4: nil, 3: {"a.md": 1}}, // a.md's newest revision in the page is a delete
		"&limit=2&before=3": {2: nil, 1: nil},
	} {
		if got := activity(query); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("activity%s: restores %v; want %v", query, got, want)
		}
	}
}
