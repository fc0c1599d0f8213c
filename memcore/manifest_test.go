package memcore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/internal/memtest"
)

// writeTopic writes a file under dir with a given modification time.
func writeTopic(t *testing.T, dir, rel, content string, mtime time.Time) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	memtest.Write(t, p, content)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func TestManifest(t *testing.T) {
	dir := t.TempDir()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	writeTopic(t, dir, "MEMORY.md", "- [Role](user_role.md) — data scientist\n", base.Add(9*time.Hour))
	writeTopic(t, dir, "user_role.md", "---\nname: Role\ndescription: the user is a data scientist\ntype: user\n---\nbody\n", base.Add(time.Hour))
	writeTopic(t, dir, "team/api.md", "\uFEFF---\nname: API\ndescription: \"REST conventions\"\ntype: project\n---\n", base.Add(3*time.Hour))
	writeTopic(t, dir, "team/MEMORY.md", "index\n", base.Add(8*time.Hour))
	writeTopic(t, dir, "odd.md", "---\nname: Odd\ntype: opinion\n---\n", base.Add(2*time.Hour))
	writeTopic(t, dir, "plain.md", "no frontmatter\n", base.Add(2*time.Hour))
	writeTopic(t, dir, "notes.txt", "not a topic\n", base.Add(5*time.Hour))
	writeTopic(t, dir, "logs/2026/01/2026-01-01.md", "- a daily log\n", base.Add(5*time.Hour))

	got, err := Manifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Topic{
		{Path: "team/api.md", Name: "API", Description: "REST conventions", Type: "project", ModTime: base.Add(3 * time.Hour)},
		{Path: "odd.md", Name: "Odd", ModTime: base.Add(2 * time.Hour)},
		{Path: "plain.md", ModTime: base.Add(2 * time.Hour)},
		{Path: "user_role.md", Name: "Role", Description: "the user is a data scientist", Type: "user", ModTime: base.Add(time.Hour)},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("Manifest (-want +got):\n%s", diff)
	}
}

func TestManifestCapsAtNewest200(t *testing.T) {
	dir := t.TempDir()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 205 {
		writeTopic(t, dir, fmt.Sprintf("t%03d.md", i), "x\n", base.Add(time.Duration(i)*time.Minute))
	}
	got, err := Manifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != MaxManifestTopics || got[0].Path != "t204.md" || got[199].Path != "t005.md" {
		t.Fatalf("got %d topics from %s to %s; want 200 from t204.md to t005.md", len(got), got[0].Path, got[len(got)-1].Path)
	}
}

func TestManifestMissingDir(t *testing.T) {
	got, err := Manifest(filepath.Join(t.TempDir(), "none"))
	if err != nil || len(got) != 0 {
		t.Fatalf("Manifest of a missing folder = %v, %v", got, err)
	}
}

func TestLintTopics(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	writeTopic(t, dir, "MEMORY.md", "no frontmatter here is fine\n", now)
	writeTopic(t, dir, "good.md", "---\nname: Good\ndescription: fine\ntype: feedback\n---\n", now)
	writeTopic(t, dir, "notype.md", "---\nname: N\ndescription: no type is allowed\n---\n", now)
	writeTopic(t, dir, "plain.md", "just text\n", now)
	writeTopic(t, dir, "bad.md", "---\nname: \"unclosed\n---\n", now)
	writeTopic(t, dir, "sub/partial.md", "---\ntitle: x\n\ntype: opinion\n---\n", now)
	writeTopic(t, dir, "good.conflict-20260102T030405Z-laptop.md", "my version, no frontmatter\n", now)

	got, err := LintTopics(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	type brief struct {
		Path string
		Line int
		Rule string
	}
	var gotBrief []brief
	for _, g := range got {
		if g.Message == "" {
			t.Errorf("problem without a message: %+v", g)
		}
		gotBrief = append(gotBrief, brief{g.Path, g.Line, g.Rule})
	}
	want := []brief{
		{p("bad.md"), 1, RuleTopicBadFrontmatter},
		{p("good.conflict-20260102T030405Z-laptop.md"), 1, RuleConflictCopy},
		{p("plain.md"), 1, RuleTopicNoFrontmatter},
		{p("sub/partial.md"), 1, RuleTopicMissingName},
		{p("sub/partial.md"), 1, RuleTopicMissingDescription},
		{p("sub/partial.md"), 4, RuleTopicUnknownType},
	}
	if diff := cmp.Diff(want, gotBrief); diff != "" {
		t.Errorf("LintTopics (-want +got):\n%s", diff)
	}
}
