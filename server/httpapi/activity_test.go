package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/servertest"
)

func TestActivity(t *testing.T) {
	ts := newTestServer(t, servertest.Options{})
	ts.Put("acme/api", map[string]string{"a.md": "one", "b.md": "b"}, nil, http.StatusOK)
	ts.Put("acme/api", map[string]string{"a.md": "two"}, nil, http.StatusOK)
	ts.Put("acme/api", nil, []string{"a.md"}, http.StatusOK)
	ts.Put("other/web", map[string]string{"x.md": "x"}, nil, http.StatusOK)

	all := servertest.Decode[api.Activity](t, ts.Do(http.MethodGet, api.PathActivity+"?repo=Acme/API.git", ts.Admin, nil))
	type item struct {
		Version          int64
		Changed, Deleted []string
	}
	var got []item
	for _, it := range all.Items {
		got = append(got, item{it.Version, it.Changed, it.Deleted})
		if it.Author != "admin" || !lastModifiedRE.MatchString(it.At) {
			t.Errorf("item %+v", it)
		}
	}
	want := []item{{3, []string{}, []string{"a.md"}}, {2, []string{"a.md"}, []string{}}, {1, []string{"a.md", "b.md"}, []string{}}}
	if all.Repo != "acme/api" || all.Next != nil || !cmp.Equal(got, want) {
		t.Errorf("activity = %+v, items %+v; want acme/api, no next, %+v", all, got, want)
	}

	first := servertest.Decode[api.Activity](t, ts.Do(http.MethodGet, api.PathActivity+"?repo=acme/api&limit=2", ts.Admin, nil))
	if len(first.Items) != 2 || first.Next == nil || *first.Next != 2 {
		t.Fatalf("first page = %+v", first)
	}
	last := servertest.Decode[api.Activity](t, ts.Do(http.MethodGet, api.PathActivity+"?repo=acme/api&limit=2&before=2", ts.Admin, nil))
	if len(last.Items) != 1 || last.Items[0].Version != 1 || last.Next != nil {
		t.Errorf("last page = %+v", last)
	}

	reader := ts.Token("ana", "acme/*:read")
	if r := ts.Do(http.MethodGet, api.PathActivity+"?repo=acme/api", reader, nil); r.Status != http.StatusOK {
		t.Errorf("activity with a read grant = %d", r.Status)
	}
	tests := []struct {
		name, query, token string
		status             int
	}{
		{"no grant", "repo=other/web", reader, http.StatusForbidden},
		{"no grant, unknown repo", "repo=zeta/none", reader, http.StatusForbidden},
		{"no token", "repo=acme/api", "", http.StatusUnauthorized},
		{"unknown repo", "repo=acme/none", reader, http.StatusNotFound},
		{"no repo", "", ts.Admin, http.StatusBadRequest},
		{"negative before", "repo=acme/api&before=-1", ts.Admin, http.StatusBadRequest},
		{"limit not a number", "repo=acme/api&limit=ten", ts.Admin, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.Do(http.MethodGet, api.PathActivity+"?"+tt.query, tt.token, nil)
			if r.Status != tt.status {
				t.Errorf("GET activity?%s = %d %s; want %d", tt.query, r.Status, r.Body, tt.status)
			}
			r.ErrorBody(t)
		})
	}
	huge := servertest.Decode[api.Activity](t, ts.Do(http.MethodGet, api.PathActivity+"?repo=acme/api&limit=99999999999", ts.Admin, nil))
	if len(huge.Items) != 3 {
		t.Errorf("a limit over the maximum = %d items; want all 3", len(huge.Items))
	}
}
