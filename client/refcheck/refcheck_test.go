package refcheck

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/testkit/gittest"
)

// writeFile writes a file of the fixture checkout.
func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// numbered returns n lines of text, the first holding first.
func numbered(first string, n int) string {
	var b strings.Builder
	b.WriteString(first + "\n")
	for i := 1; i < n; i++ {
		b.WriteString("// line\n")
	}
	return b.String()
}

// fixture makes a checkout whose second commit deletes, renames and edits
// files the topic below refers to; it returns the root and both commits.
func fixture(t *testing.T) (root, first, second string) {
	t.Helper()
	root = t.TempDir()
	gittest.Run(t, root, "init", "-q", "-b", "main")
	writeFile(t, root, "client/push.go", numbered("func RetryPush() {}", 20))
	writeFile(t, root, "client/backoff.go", "package client\n\nfunc Backoff() {}\n")
	writeFile(t, root, "client/legacy.go", "package client\n")
	writeFile(t, root, "old/deploy.sh", numbered("#!/bin/sh\necho deploying the service to production", 12))
	writeFile(t, root, "scripts/release.sh", "#!/bin/sh\n")
	writeFile(t, root, "docs/guide.md", "# guide\n")
	gittest.Run(t, root, "add", "-A")
	gittest.Run(t, root, "commit", "-q", "-m", "first")
	first = strings.TrimSpace(gittest.Run(t, root, "rev-parse", "HEAD"))
	gittest.Run(t, root, "mv", "old/deploy.sh", "scripts/deploy.sh")
	gittest.Run(t, root, "rm", "-q", "client/legacy.go")
	writeFile(t, root, "client/backoff.go", "package client\n\nfunc Backoffs() {} // Backoff_v2\n")
	gittest.Run(t, root, "commit", "-q", "-am", "second")
	second = strings.TrimSpace(gittest.Run(t, root, "rev-parse", "HEAD"))
	writeFile(t, root, "client/untracked.go", "package client\n") // in the working tree only
	return root, first, second
}

const fixtureTopic = "---\nname: deploys\ndescription: d\nrefs:\n  - docs/guide.md:1\n  - docs:3\n---\n" +
	"Present: `client/push.go:RetryPush`, [push](client/push.go#L1-L20), `scripts/release.sh`, `docs/`.\n" + // 8
	"Deleted: `client/legacy.go`.\n" + // 9
	"Renamed: `old/deploy.sh`.\n" + // 10
	"Past the end: `client/push.go:15-21`.\n" + // 11
	"Symbol gone: `Backoff` in client/backoff.go.\n" + // 12
	"Untracked: `client/untracked.go`.\n" + // 13
	"Not a folder: `scripts/release.sh/`.\n" + // 14
	"```\nexample `client/nothere.go` and client/nothere.go:Gone\n```\n" +
	"    `client/indented.go`\n"

func TestCheckFixture(t *testing.T) {
	root, _, second := fixture(t)
	c := New(filepath.Join(root, "client")) // any folder of the checkout
	rep, err := c.Check(context.Background(), []Topic{{Key: "deploys.md", Content: fixtureTopic}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Head != second || rep.Refs != 12 {
		t.Errorf("head %s refs %d; want %s and 12", rep.Head, rep.Refs, second)
	}
	type row struct {
		Text, Reason, Since, RenamedTo string
		Line                           int
	}
	var got []row
	for _, f := range rep.Findings {
		if f.Key != "deploys.md" || f.Message == "" {
			t.Errorf("finding %+v", f)
		}
		got = append(got, row{f.Ref.Text, f.Reason, f.Since, f.RenamedTo, f.Ref.Line})
	}
	want := []row{
		{"docs:3", ReasonNotFile, "", "", 6},
		{"client/legacy.go", ReasonMissing, second, "", 9},
		{"old/deploy.sh", ReasonMissing, second, "scripts/deploy.sh", 10},
		{"client/push.go:15-21", ReasonPastEnd, "", "", 11},
		{"Backoff in client/backoff.go", ReasonNoSymbol, "", "", 12},
		{"client/untracked.go", ReasonMissing, "", "", 13},
		{"scripts/release.sh/", ReasonNotFile, "", "", 14},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	if m := rep.Findings[2].Message; !strings.Contains(m, "renamed to scripts/deploy.sh in "+second[:12]) {
		t.Errorf("rename message %q", m)
	}
}

func TestCheckFollowsHead(t *testing.T) {
	root, first, _ := fixture(t)
	c := New(root)
	topics := []Topic{{Key: "a.md", Content: "`client/legacy.go` and `scripts/deploy.sh`\n"}}
	check := func() Report {
		t.Helper()
		rep, err := c.Check(context.Background(), topics)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	committed, err := time.Parse(time.RFC3339, strings.TrimSpace(gittest.Run(t, root, "log", "-1", "--format=%cI")))
	if err != nil {
		t.Fatal(err)
	}
	if rep := check(); len(rep.Findings) != 1 || rep.Findings[0].Ref.Path != "client/legacy.go" || rep.Branch != "main" ||
		!rep.CommittedAt.Equal(committed) {
		t.Fatalf("at the second commit: %+v; want branch main, committed at %v", rep, committed)
	}
	if again := check(); len(again.Findings) != 1 || again.Findings[0].Since == "" {
		t.Fatalf("cached check: %+v", again.Findings)
	}
	gittest.Run(t, root, "checkout", "-q", first)
	if rep := check(); rep.Head != first || len(rep.Findings) != 1 || rep.Findings[0].Ref.Path != "scripts/deploy.sh" || rep.Branch != "" {
		t.Fatalf("at the first commit, HEAD detached: %+v", rep)
	}
	topics[0].Content = "nothing\n"
	if rep := check(); len(rep.Findings) != 0 {
		t.Fatalf("edited topic: %+v", rep.Findings)
	}
}

func TestCheckLinkedWorktree(t *testing.T) {
	main, linked := gittest.NewCheckout(t, "")
	writeFile(t, linked, "feature.go", "package x\n")
	gittest.Run(t, linked, "add", "feature.go")
	gittest.Run(t, linked, "commit", "-q", "-m", "feature")
	topics := []Topic{{Key: "a.md", Content: "`./feature.go` `./README.md`\n"}}
	for dir, stale := range map[string]int{main: 1, linked: 0} {
		rep, err := New(dir).Check(context.Background(), topics)
		if err != nil || len(rep.Findings) != stale {
			t.Errorf("%s: %d findings, err %v; want %d", dir, len(rep.Findings), err, stale)
		}
	}
}

func TestCheckNoRepoOrNoCommit(t *testing.T) {
	if _, err := New(t.TempDir()).Check(context.Background(), nil); !errors.Is(err, ErrNotRepo) {
		t.Errorf("not a repository: %v", err)
	}
	empty := t.TempDir()
	gittest.Run(t, empty, "init", "-q")
	rep, err := New(empty).Check(context.Background(), []Topic{{Key: "a.md", Content: "`a/b.go`"}})
	if err != nil || rep.Head != "" || len(rep.Findings) != 0 {
		t.Errorf("no commit yet: %+v, %v", rep, err)
	}
}

func TestCheckHostilePaths(t *testing.T) {
	root, _, _ := fixture(t)
	content := "---\nrefs:\n  - .git/config\n  - client/../../../etc/passwd\n  - \"client/push.go:99999999\"\n---\n"
	rep, err := New(root).Check(context.Background(), []Topic{{Key: "h.md", Content: content}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Ref.Path != ".git/config" || rep.Findings[0].Reason != ReasonMissing {
		t.Errorf("findings %+v", rep.Findings)
	}
}

func TestHasWord(t *testing.T) {
	for _, tt := range []struct {
		data, w string
		want    bool
	}{
		{"func RetryPush()", "RetryPush", true},
		{"RetryPushes", "RetryPush", false},
		{"xRetryPush RetryPush_", "RetryPush", false},
		{"a RetryPushx RetryPush", "RetryPush", true},
		{"RetryPush", "RetryPush", true},
		{"", "a", false},
	} {
		if got := hasWord([]byte(tt.data), tt.w); got != tt.want {
			t.Errorf("hasWord(%q, %q) = %v", tt.data, tt.w, got)
		}
	}
}

func TestCheckReadsOnlyNewVersions(t *testing.T) {
	root, _, _ := fixture(t)
	c := New(root)
	reads := 0
	topic := Topic{Key: "a.md", Version: "v1", Read: func() (string, error) { reads++; return "`client/gone.go`", nil }}
	for range 3 {
		rep, err := c.Check(context.Background(), []Topic{topic})
		if err != nil || len(rep.Findings) != 1 {
			t.Fatalf("%+v %v", rep, err)
		}
	}
	topic.Version = "v2"
	if _, err := c.Check(context.Background(), []Topic{topic}); err != nil || reads != 2 {
		t.Errorf("reads %d, want 2 (one per version); err %v", reads, err)
	}
	topic.Version, topic.Read = "v3", func() (string, error) { return "", os.ErrNotExist }
	if rep, err := c.Check(context.Background(), []Topic{topic}); err != nil || len(rep.Findings) != 0 {
		t.Errorf("unreadable topic: %+v %v", rep, err)
	}
}

func TestCheckSurvivesRepack(t *testing.T) {
	root, _, _ := fixture(t)
	c := New(root)
	topics := []Topic{{Key: "a.md", Content: "`client/push.go:RetryPush` `client/legacy.go`"}}
	if rep, err := c.Check(context.Background(), topics); err != nil || len(rep.Findings) != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	writeFile(t, root, "client/new.go", "package client\n")
	gittest.Run(t, root, "add", "client/new.go")
	gittest.Run(t, root, "commit", "-q", "-m", "new")
	gittest.Run(t, root, "gc", "-q", "--prune=now")
	topics[0].Content += " `client/new.go`"
	for range 2 { // the first may fail on packs gc removed; then the repository is opened again
		rep, err := c.Check(context.Background(), topics)
		if err == nil {
			if len(rep.Findings) != 1 || rep.Findings[0].Since == "" {
				t.Errorf("after gc: %+v", rep.Findings)
			}
			return
		}
	}
	t.Error("checks after git gc keep failing")
}
