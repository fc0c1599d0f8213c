package server

import (
	"slices"
	"strings"
	"testing"
)

func TestGrantMatches(t *testing.T) {
	tests := []struct {
		grant, repo string
		want        bool
	}{
		{"acme/*:read", "acme/api", true},
		{"acme/*:read", "acme/a/b", false},
		{"acme/**:read", "acme/a/b", true},
		{"acme/**:read", "acme/api", true},
		{"acme/**:read", "other/api", false},
		{"**:admin", "x/y", true},
		{"**:admin", "a/b/c/d", true},
		{"acme/api:write", "acme/api", true},
		{"acme/api:write", "acme/api2", false},
		{"ACME/API:write", "acme/api", true},
		{"*/api:read", "acme/api", true},
		{"**/api:read", "g/s/api", true},
		{"**/api:read", "g/s/web", false},
	}
	for _, tt := range tests {
		t.Run(tt.grant+" "+tt.repo, func(t *testing.T) {
			g, err := ParseGrant(tt.grant)
			if err != nil {
				t.Fatal(err)
			}
			if got := g.Matches(tt.repo); got != tt.want {
				t.Errorf("Matches = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseGrantRejects(t *testing.T) {
	for _, s := range []string{"", "acme/api", "acme/api:", "acme/api:owner", ":read", "acme//x:read", "acme/../x:read", "acme/x y:read", "a/%2e:read"} {
		t.Run(s, func(t *testing.T) {
			if _, err := ParseGrant(s); err == nil {
				t.Errorf("ParseGrant(%q) succeeded", s)
			}
		})
	}
}

func TestPrincipalPerm(t *testing.T) {
	r, _ := ParseGrant("acme/**:read")
	w, _ := ParseGrant("acme/api:write")
	p := Principal{Subject: "ci", Grants: []Grant{r, w}}
	if !p.Can("acme/api", PermWrite) || p.Can("acme/web", PermWrite) || !p.Can("acme/web", PermRead) || p.Can("other/x", PermRead) {
		t.Errorf("unexpected permissions: api=%v web=%v other=%v", p.Perm("acme/api"), p.Perm("acme/web"), p.Perm("other/x"))
	}
}

// TestListPrefixes: the prefixes a principal's repositories are listed by
// cover every repository it can read (each matching name starts with
// one), and none covers another.
func TestListPrefixes(t *testing.T) {
	own := PersonalPrefix("alice")
	tests := []struct {
		grants []string
		want   []string
	}{
		{nil, []string{own}},
		{[]string{"acme/*:read"}, []string{"acme/", own}},
		{[]string{"acme/api:write"}, []string{"acme/.memory", "acme/api", own}},
		{[]string{"acme/api:write", "acme/*:read", "acme/**/x:read"}, []string{"acme/", own}},
		{[]string{"acme/api:write", "acme-x/*:read"}, []string{"acme-x/", "acme/.memory", "acme/api", own}},
		{[]string{"*/api:read", "acme/*:read"}, []string{""}},
		{[]string{"**:admin"}, []string{""}},
	}
	names := []string{"acme/api", "acme/.memory", "acme/api2", "acme/web", "acme/a/x", "acme-x/y", "b/api", own + "acme/api", PersonalPrefix("bob") + "acme/api"}
	for _, tt := range tests {
		p := principalWith(t, tt.grants...)
		got := p.listPrefixes()
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: listPrefixes = %q; want %q", tt.grants, got, tt.want)
		}
		for _, name := range names {
			if p.Can(name, PermRead) && !slices.ContainsFunc(got, func(pre string) bool { return strings.HasPrefix(name, pre) }) {
				t.Errorf("%q: %s is readable but under no prefix of %q", tt.grants, name, got)
			}
		}
	}
	if got := (Principal{}).listPrefixes(); len(got) != 0 {
		t.Errorf("no subject, no grants: %q; want none", got)
	}
}
