package storetest

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// serverIDForm is the form of every store's identity.
var serverIDForm = regexp.MustCompile(`^[0-9a-f]{32}$`)

func testServerID(t *testing.T, s server.Store) {
	id := s.ServerID()
	if !serverIDForm.MatchString(id) {
		t.Fatalf("ServerID = %q; want 32 lowercase hex digits", id)
	}
	apply(t, s, write(repo, at(0), contents{"a.md": "a"}))
	if got := s.ServerID(); got != id {
		t.Errorf("ServerID after a write = %q; want %q", got, id)
	}
}

// SameServer checks that two stores opened on one database (two replicas,
// or one database reopened) have one identity, and that a store of another
// database has another.
func SameServer(t *testing.T, a, b, other server.Store) {
	if a.ServerID() != b.ServerID() {
		t.Errorf("two stores on one database: ServerID %q and %q; want one", a.ServerID(), b.ServerID())
	}
	if other.ServerID() == a.ServerID() {
		t.Errorf("another database has the same ServerID %q", a.ServerID())
	}
}

func testSeenChecksums(t *testing.T, s server.Store) {
	ctx := context.Background()
	sum := func(c string) string { return protocol.EntryChecksum([]byte(c)) }
	got, err := s.SeenChecksums(ctx, "never/written", map[string]string{"a.md": sum("v1")})
	if err != nil || len(got) != 0 {
		t.Fatalf("SeenChecksums on a never-written repo = %v, %v; want empty", got, err)
	}
	historyRepo(t, s) // a.md: v1 put "v1", v2 put "v2 longer", v3 delete, v4 put "v4"; b.md "b" at v2
	apply(t, s, write("other/repo", at(5), contents{"c.md": "other"}))
	apply(t, s, write(repo, at(6), contents{"a.md": "v1"})) // v5: back to v1
	apply(t, s, write(repo, at(7), nil, "b.md"))            // v6
	tests := []struct {
		name string
		want map[string]string
		seen map[string]int64
	}{
		{"current content", map[string]string{"a.md": sum("v1")}, map[string]int64{"a.md": 5}},
		{"content deleted then put again", map[string]string{"a.md": sum("v2 longer")}, map[string]int64{"a.md": 3}},
		{"an older revision", map[string]string{"a.md": sum("v4")}, map[string]int64{"a.md": 4}},
		{"the content a tombstone deleted", map[string]string{"b.md": sum("b")}, map[string]int64{"b.md": 6}},
		{"never held", map[string]string{"a.md": sum("never"), "b.md": sum("v1")}, map[string]int64{}},
		{"another repo's key", map[string]string{"c.md": sum("other")}, map[string]int64{}},
		{"a key that never existed", map[string]string{"zz.md": sum("v1")}, map[string]int64{}},
		{"several", map[string]string{"a.md": sum("v4"), "b.md": sum("b"), "zz.md": sum("b")},
			map[string]int64{"a.md": 4, "b.md": 6}},
		{"a key with quotes and unicode", map[string]string{`"é"/\n.md`: sum("v1")}, map[string]int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.SeenChecksums(ctx, repo, tt.want)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.seen, got); diff != "" {
				t.Errorf("SeenChecksums(%v) (-want +got):\n%s", tt.want, diff)
			}
		})
	}
	// Many keys at once: one query, whatever their number.
	many := map[string]string{}
	for i := range server.MaxSeenEntries {
		many[strings.Repeat("k", 1+i%50)+string(rune('a'+i%26))+".md"] = sum("x")
	}
	many["a.md"] = sum("v4")
	got, err = s.SeenChecksums(ctx, repo, many)
	if err != nil || !cmp.Equal(got, map[string]int64{"a.md": 4}) {
		t.Errorf("SeenChecksums of %d keys = %v, %v; want a.md at 4", len(many), got, err)
	}
}
