package server

import (
	"slices"
	"strings"
	"testing"
)

// principalWith is alice with grants.
func principalWith(t *testing.T, grants ...string) Principal {
	t.Helper()
	p := Principal{Subject: "alice"}
	for _, s := range grants {
		g, err := ParseGrant(s)
		if err != nil {
			t.Fatal(err)
		}
		p.Grants = append(p.Grants, g)
	}
	return p
}

// TestOrgMemoryPerm is the table of which grants give which permission on
// an org memory.
func TestOrgMemoryPerm(t *testing.T) {
	tests := []struct {
		grant, repo string
		want        Perm
	}{
		// Reading any repository under acme/ reads acme/.memory.
		{"acme/api:read", "acme/.memory", PermRead},
		{"acme/*:read", "acme/.memory", PermRead},
		{"acme/**:read", "acme/.memory", PermRead},
		{"acme/a/b:read", "acme/.memory", PermRead},
		{"*/api:read", "acme/.memory", PermRead},
		{"**/api:read", "group/sub/.memory", PermRead},
		{"**:read", "acme/.memory", PermRead},
		{"acme/.memory:read", "acme/.memory", PermRead},
		// ... and nothing else does.
		{"acme-corp/*:read", "acme/.memory", PermNone},
		{"acme-corp/**:admin", "acme/.memory", PermNone},
		{"acme:read", "acme/.memory", PermNone},
		{"*:read", "acme/.memory", PermNone},
		{"acme/api:read", "acme-corp/.memory", PermNone},
		{"acme/api:read", "acme/api/.memory", PermNone},
		{"other/acme/api:read", "acme/.memory", PermNone},
		// Nested groups: every namespace above a readable repository.
		{"group/sub/proj:read", "group/sub/.memory", PermRead},
		{"group/sub/proj:read", "group/.memory", PermRead},
		{"group/*:read", "group/sub/.memory", PermNone},
		{"group/**:read", "group/sub/.memory", PermRead},
		{"group/sub/*:read", "group/.memory", PermRead},
		{"group/sub/proj:read", "group/other/.memory", PermNone},
		// Writing needs the literal name or admin.
		{"acme/.memory:write", "acme/.memory", PermWrite},
		{"ACME/.MEMORY:write", "acme/.memory", PermWrite},
		{"acme/*:write", "acme/.memory", PermRead},
		{"acme/**:write", "acme/.memory", PermRead},
		{"**:write", "acme/.memory", PermRead},
		{"acme/api:write", "acme/.memory", PermRead},
		{"group/sub/.memory:write", "group/.memory", PermRead},
		{"acme/*:admin", "acme/.memory", PermAdmin},
		{"acme/**:admin", "acme/.memory", PermAdmin},
		{"**:admin", "group/sub/.memory", PermAdmin},
		{"acme/.memory:admin", "acme/.memory", PermAdmin},
		{"acme/api:admin", "acme/.memory", PermRead},
		{"group/*:admin", "group/sub/.memory", PermNone},
		// Ordinary repositories keep the ordinary rules.
		{"acme/*:write", "acme/..memory", PermWrite},
		{"acme/*:write", "acme/api", PermWrite},
	}
	for _, tt := range tests {
		t.Run(tt.grant+" "+tt.repo, func(t *testing.T) {
			if got := principalWith(t, tt.grant).Perm(tt.repo); got != tt.want {
				t.Errorf("Perm = %v, want %v", got, tt.want)
			}
		})
	}
	if got := principalWith(t, "acme/*:write", "acme/.memory:read").Perm("acme/.memory"); got != PermRead {
		t.Errorf("a glob write grant with a literal read grant: %v, want read", got)
	}
}

// TestOrgMemoryListed: every org memory a principal reads lies under one
// of its listing prefixes.
func TestOrgMemoryListed(t *testing.T) {
	names := []string{"acme/.memory", "group/.memory", "group/sub/.memory", "group/sub/deep/.memory", "acme-corp/.memory"}
	for _, grants := range [][]string{
		{"acme/api:read"}, {"group/sub/proj:read"}, {"group/sub/*:write"}, {"group/**:read"},
		{"acme/api:write", "group/sub/deep/x:read"}, {"acme-corp/*:read"}, {"*/api:read"},
	} {
		p := principalWith(t, grants...)
		prefixes := p.listPrefixes()
		for _, name := range names {
			if p.Can(name, PermRead) && !slices.ContainsFunc(prefixes, func(pre string) bool { return strings.HasPrefix(name, pre) }) {
				t.Errorf("%q: %s is readable but under no prefix of %q", grants, name, prefixes)
			}
		}
	}
}
