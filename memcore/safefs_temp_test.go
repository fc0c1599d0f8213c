package memcore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsTempName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{".teammem-tmp-ABC", true},
		{"a/b/.teammem-tmp-ABC", true},
		{`a\.teammem-tmp-ABC`, true},
		{"teammem-tmp-ABC", false},
		{".teammem-tmp-dir/x.md", false},
		{"MEMORY.md", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsTempName(tc.name); got != tc.want {
				t.Fatalf("IsTempName(%q) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}

func TestCleanTemp(t *testing.T) {
	f := newSafeFixture(t)
	for _, p := range []string{".teammem-tmp-A", "a/b/.teammem-tmp-B", "keep.md", "a/keep.md", "a/.teammem-tmp-dir/x.md"} {
		mustWrite(t, filepath.Join(f.dir, filepath.FromSlash(p)), "x")
	}
	mustWrite(t, filepath.Join(f.outside, ".teammem-tmp-OUT"), "x")
	if err := os.Symlink(f.outside, filepath.Join(f.dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.outside, ".teammem-tmp-OUT"), filepath.Join(f.dir, ".teammem-tmp-link")); err != nil {
		t.Fatal(err)
	}
	removed, err := CleanTemp(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{".teammem-tmp-A", "a/b/.teammem-tmp-B"}, removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	want := []string{".teammem-tmp-link@", "a/", "a/.teammem-tmp-dir/", "a/.teammem-tmp-dir/x.md", "a/b/", "a/keep.md", "keep.md", "out@"}
	if diff := cmp.Diff(want, tree(t, f.dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(f.outside, ".teammem-tmp-OUT")); err != nil {
		t.Errorf("outside temp file touched: %v", err)
	}
}

// TestCleanTempSkips: the folders named, directly below dir and in any
// case, keep their temporary files (another agent may be writing them);
// a folder of that name deeper down does not.
func TestCleanTempSkips(t *testing.T) {
	f := newSafeFixture(t)
	for _, p := range []string{".teammem-tmp-A", "team/.teammem-tmp-T", "Team2/.teammem-tmp-U", "a/team/.teammem-tmp-B"} {
		mustWrite(t, filepath.Join(f.dir, filepath.FromSlash(p)), "x")
	}
	removed, err := CleanTemp(f.dir, "TEAM", "team2")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{".teammem-tmp-A", "a/team/.teammem-tmp-B"}, removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
}
