package server

import (
	"errors"
	"testing"
)

// TestPersonalPerm: no grant reaches a personal repository; its owner
// writes it whatever their grants.
func TestPersonalPerm(t *testing.T) {
	all, _ := ParseGrant("**:admin")
	mine := PersonalRepo("alice", "acme/api")
	for _, tt := range []struct {
		p    Principal
		repo string
		want Perm
	}{
		{Principal{Subject: "alice"}, mine, PermWrite},
		{Principal{Subject: "alice", Grants: []Grant{all}}, mine, PermWrite},
		{Principal{Subject: "root", Grants: []Grant{all}}, mine, PermNone},
		{Principal{Subject: "Alice", Grants: []Grant{all}}, mine, PermNone},
		{Principal{Subject: "alic", Grants: []Grant{all}}, mine, PermNone},
		{Principal{Subject: "", Grants: []Grant{all}}, "~/acme/api", PermNone},
		{Principal{Subject: "root", Grants: []Grant{all}}, "acme/api", PermAdmin},
	} {
		if got := tt.p.Perm(tt.repo); got != tt.want {
			t.Errorf("%q with %v on %s: %v, want %v", tt.p.Subject, tt.p.Grants, tt.repo, got, tt.want)
		}
	}
}

// TestResolveRepo: "~/" is the caller's own; a full name is kept; the
// subject's encoding keeps subjects apart that differ only in case.
func TestResolveRepo(t *testing.T) {
	alice := Principal{Subject: "alice"}
	for in, want := range map[string]string{
		"~/Acme/API.git":                PersonalRepo("alice", "acme/api"),
		"~/https://github.com/acme/api": PersonalRepo("alice", "acme/api"),
		PersonalRepo("bob", "acme/api"): PersonalRepo("bob", "acme/api"),
		"acme/api":                      "acme/api",
		"~" + "C5M6IOR5" + "/acme/api":  "~c5m6ior5/acme/api",
	} {
		if got, err := ResolveRepo(alice, in); err != nil || got != want {
			t.Errorf("ResolveRepo(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if PersonalSpace("alice") == PersonalSpace("Alice") {
		t.Error("subjects differing in case share a personal space")
	}
	if _, err := ResolveRepo(Principal{}, "~/acme/api"); !errors.Is(err, ErrForbidden) {
		t.Errorf("no subject: %v; want ErrForbidden", err)
	}
}
