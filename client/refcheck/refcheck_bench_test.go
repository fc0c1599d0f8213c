package refcheck

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/teammem/teammem/testkit/gittest"
)

// Sizes of the benchmark: the 1,000 topics × 5 references against
// a 50,000-file repository.
const (
	benchFiles  = 50_000
	benchTopics = 1_000
)

// benchRepo builds, with git fast-import (one packfile, as a clone has),
// a repository of benchFiles Go files of 40 lines in 500 folders, and
// returns its root. Each file's lines are its own, so that, as in a
// repository packed by git gc, HEAD's blobs are stored whole rather than
// as deltas of one another.
func benchRepo(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	gittest.Run(b, root, "init", "-q", "-b", "main")
	var s strings.Builder
	s.WriteString("commit refs/heads/main\ncommitter t <t@example.com> 0 +0000\ndata 5\nbulk\n")
	for i := range benchFiles {
		var body strings.Builder
		for j := range 37 {
			fmt.Fprintf(&body, "var v%d = %d\n", j, (i*7919+j*104729)%1000003)
		}
		content := fmt.Sprintf("package p\n\nfunc Sym%05d() {}\n%s", i, body.String())
		fmt.Fprintf(&s, "M 644 inline %s\ndata %d\n%s\n", benchPath(i), len(content), content)
	}
	gittest.RunInput(b, root, strings.NewReader(s.String()), "fast-import", "--quiet")
	return root
}

// benchPath is the path of file i of benchRepo.
func benchPath(i int) string {
	return fmt.Sprintf("pkg%03d/sub%d/file%05d.go", i%100, i%5, i)
}

// benchTopics returns benchTopics topics of 5 references each, spread over
// the files: a path, a line, a line range, a symbol, and one of them in
// ten stale (a file that does not exist).
func makeBenchTopics() []Topic {
	topics := make([]Topic, benchTopics)
	for i := range topics {
		f := func(k int) string { return benchPath((i*5 + k) * 9 % benchFiles) }
		sym := (i*5 + 3) * 9 % benchFiles
		last := "`" + f(4) + "`"
		if i%10 == 0 {
			last = fmt.Sprintf("`gone/file%05d.go`", i)
		}
		topics[i] = Topic{Key: fmt.Sprintf("topic%04d.md", i), Content: fmt.Sprintf(
			"---\nname: t%d\ndescription: d\n---\nSee `%s`, `%s:12`, [range](%s#L3-L30), `%s:Sym%05d` and %s.\n",
			i, f(0), f(1), f(2), f(3), sym, last)}
	}
	return topics
}

// BenchmarkCheck measures a cold check (a new Checker: the repository is
// opened and every reference is looked up) and a warm one (same HEAD,
// same topics: the cache answers).
func BenchmarkCheck(b *testing.B) {
	root := benchRepo(b)
	topics := makeBenchTopics()
	ctx := context.Background()
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			rep, err := New(root).Check(ctx, topics)
			if err != nil || rep.Refs != 5*benchTopics || len(rep.Findings) != benchTopics/10 {
				b.Fatalf("refs %d findings %d err %v", rep.Refs, len(rep.Findings), err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		c := New(root)
		if _, err := c.Check(ctx, topics); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := c.Check(ctx, topics); err != nil {
				b.Fatal(err)
			}
		}
	})
}
