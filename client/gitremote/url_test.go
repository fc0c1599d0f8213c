package gitremote_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/gitremote"
	"github.com/teammem/teammem/memcore/protocol"
)

func TestCanonicalFromURL(t *testing.T) {
	tests := []struct {
		name, url, want string
	}{
		{"scp", "git@github.com:Acme/API.git", "acme/api"},
		{"https with credentials", "https://user:pw@github.com/acme/api", "acme/api"},
		{"ssh with port", "ssh://git@host:2222/acme/api.git", "acme/api"},
		{"gitlab nested groups", "https://gitlab.example.com/group/sub/proj.git", "group/sub/proj"},
		{"git protocol", "git://git.example.com/acme/api.git", "acme/api"},
		{"http", "http://git.example.com/Acme/Web", "acme/web"},
		{"trailing slash", "https://github.com/acme/api/", "acme/api"},
		{"trailing .git and slash", "https://github.com/acme/api.git/", "acme/api"},
		{"git+ssh", "git+ssh://git@github.com/acme/api.git", "acme/api"},
		{"scp without user", "github.com:acme/api", "acme/api"},
		{"scp with leading slash", "git@github.com:/acme/api.git", "acme/api"},
		{"scp bracketed IPv6 host", "[git@::1]:acme/api.git", "acme/api"},
		{"scp user then bracketed host", "git@[::1]:acme/api.git", "acme/api"},
		{"ssh bracketed IPv6 host", "ssh://git@[::1]:22/acme/api.git", "acme/api"},
		{"surrounding space", "  https://github.com/acme/api.git\n", "acme/api"},
		{"dots, dashes and underscores", "git@host:my-org/my_repo.v2.git", "my-org/my_repo.v2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gitremote.CanonicalFromURL(tt.url)
			if err != nil || got != tt.want {
				t.Errorf("CanonicalFromURL(%q) = %q, %v; want %q", tt.url, got, err, tt.want)
			}
		})
	}
}

func TestCanonicalFromURLErrors(t *testing.T) {
	tests := []struct {
		name, url string
		want      error // nil: any error
	}{
		{"file URL", "file:///srv/git/acme/api.git", gitremote.ErrLocalRemote},
		{"absolute path", "/srv/git/acme/api.git", gitremote.ErrLocalRemote},
		{"relative path", "../acme/api", gitremote.ErrLocalRemote},
		{"dot path", "./api.git", gitremote.ErrLocalRemote},
		{"bare relative path", "acme/api", gitremote.ErrLocalRemote},
		{"home path", "~/repos/acme/api", gitremote.ErrLocalRemote},
		{"path with colon after slash", "./a:b/c", gitremote.ErrLocalRemote},
		{"windows path", `C:\repos\acme\api`, gitremote.ErrLocalRemote},
		{"windows forward slashes", "c:/repos/acme/api", gitremote.ErrLocalRemote},
		{"empty", "", nil},
		{"one segment", "https://github.com/acme", protocol.ErrInvalidSlug},
		{"no path", "https://github.com", protocol.ErrInvalidSlug},
		{"empty segment", "https://host/acme//web", protocol.ErrInvalidSlug},
		{"dot-dot segment", "https://host/acme/../web", protocol.ErrInvalidSlug},
		{"bad character", "https://host/acme/we b", protocol.ErrInvalidSlug},
		{"unknown scheme", "ftp://host/acme/api", protocol.ErrInvalidSlug},
		{"credentials in a bad URL", "https://bob:hunter2secret@host/acme", protocol.ErrInvalidSlug},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gitremote.CanonicalFromURL(tt.url)
			if err == nil {
				t.Fatalf("CanonicalFromURL(%q) = %q, want an error", tt.url, got)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
			if strings.Contains(err.Error(), "hunter2secret") {
				t.Errorf("error leaks the password: %v", err)
			}
		})
	}
}

func FuzzCanonicalFromURL(f *testing.F) {
	for _, s := range []string{"git@github.com:Acme/API.git", "https://u:p@h:1/a/b.git/", "[::1]:a/b", "file:///x/y", "C:/x/y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		slug, err := gitremote.CanonicalFromURL(raw)
		if err != nil {
			return
		}
		again, err := protocol.CanonicalSlug(slug)
		if err != nil || again != slug {
			t.Fatalf("CanonicalFromURL(%q) = %q, which is not canonical (%q, %v)", raw, slug, again, err)
		}
	})
}
