package protocol

import (
	"errors"
	"strings"
	"testing"
)

func TestCanonicalSlugAccepts(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "acme/api", "acme/api"},
		{"case and .git", "Acme/API.git", "acme/api"},
		{"scp form", "git@github.com:Acme/API.git", "acme/api"},
		{"scp without user", "github.com:acme/api", "acme/api"},
		{"https credentials", "https://user:pw@github.com/acme/api", "acme/api"},
		{"ssh port", "ssh://git@host:2222/acme/api.git", "acme/api"},
		{"nested groups", "https://gitlab.example.com/group/sub/proj.git", "group/sub/proj"},
		{"http", "http://git.internal/team/repo", "team/repo"},
		{"git scheme", "git://example.org/a/b.git", "a/b"},
		{"upper scheme", "HTTPS://GitHub.com/Acme/Api", "acme/api"},
		{"surrounding slashes", "/acme/api/", "acme/api"},
		{"trailing slash after .git", "https://github.com/acme/api.git/", "acme/api"},
		{"repeated .git", "acme/api.git.git", "acme/api"},
		{"allowed characters", "my-org/my_repo.v2", "my-org/my_repo.v2"},
		{"dotted segment", "acme/.github", "acme/.github"},
		{"eight segments", "a/b/c/d/e/f/g/h", "a/b/c/d/e/f/g/h"},
		{"exactly 200 bytes", strings.Repeat("a", 100) + "/" + strings.Repeat("b", 99), strings.Repeat("a", 100) + "/" + strings.Repeat("b", 99)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CanonicalSlug(tc.in)
			if err != nil || got != tc.want {
				t.Fatalf("CanonicalSlug(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestCanonicalSlugRefuses(t *testing.T) {
	tests := []struct{ name, in, reason string }{
		{"empty", "", "empty segment"},
		{"double slash", "acme//web", "empty segment"},
		{"parent", "../etc", "segment \"..\""},
		{"parent inside", "acme/../etc", "segment \"..\""},
		{"dot", "acme/./x", "segment \".\""},
		{"one segment", "a", "1 segments"},
		{"one segment url", "https://github.com/acme", "1 segments"},
		{"nine segments", "a/b/c/d/e/f/g/h/i", "9 segments"},
		{"201 bytes", strings.Repeat("a", 100) + "/" + strings.Repeat("b", 100), "longer than 200"},
		{"dollar", "acme/web$", "'$'"},
		{"NUL", "acme/we\x00b", "'\\x00'"},
		{"space", "acme/my web", "' '"},
		{"leading space", " acme/web", "' '"},
		{"unicode", "acmé/web", "not allowed"},
		{"fullwidth slash", "acme／web", "not allowed"},
		{"backslash", "acme\\web", "'\\\\'"},
		{"query", "https://github.com/acme/api?x=1", "'?'"},
		{"userinfo in plain", "user@acme/api", "'@'"},
		{"unknown scheme", "ftp://host/acme/api", "unsupported scheme"},
		{"file scheme", "file:///srv/git/acme/api", "unsupported scheme"},
		{"no path", "https://github.com", "no path"},
		{"empty host scp", ":acme/api", "empty host"},
		{"only .git", "acme/.git", "empty segment"},
		{"percent", "acme/a%2fb", "'%'"},
		{"tilde", "ssh://host/~user/repo", "'~'"},
		{"drive", "C:\\repo\\x", "'\\\\'"},
		{"newline", "acme/api\n", "'\\n'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CanonicalSlug(tc.in)
			if !errors.Is(err, ErrInvalidSlug) {
				t.Fatalf("CanonicalSlug(%q) = %q, %v; want ErrInvalidSlug", tc.in, got, err)
			}
			if !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("error %q, want it to mention %q", err, tc.reason)
			}
		})
	}
}

func TestCanonicalSlugHidesPassword(t *testing.T) {
	_, err := CanonicalSlug("https://bob:hunter2@github.com/acme")
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("error %v carries the password", err)
	}
}

func FuzzCanonicalSlug(f *testing.F) {
	for _, s := range []string{"acme/api", "Acme/API.git", "git@github.com:Acme/API.git",
		"https://user:pw@github.com/acme/api", "ssh://git@host:2222/acme/api.git",
		"https://gitlab.example.com/group/sub/proj.git", "acme//web", "../etc", "a/b.git.git/",
		"acme/./x", "x:y/z", "/a/b/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := CanonicalSlug(s)
		if err != nil {
			return
		}
		again, err := CanonicalSlug(got)
		if err != nil || again != got {
			t.Fatalf("CanonicalSlug(%q) = %q, which canonicalises to %q, %v", s, got, again, err)
		}
		if err := checkSlug(got); err != nil {
			t.Fatalf("CanonicalSlug(%q) = %q: %v", s, got, err)
		}
	})
}
