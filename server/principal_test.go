package server

import "testing"

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
