package blame_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/blame"
)

// rev is one revision of the tests' key: a put of content, or a delete
// when content is "<deleted>".
func rev(version int64, content string) server.Revision {
	r := server.Revision{Key: "MEMORY.md", Version: version, Op: server.OpPut, Content: content,
		Author: "a" + string(rune('0'+version%10)), At: time.Unix(version, 0).UTC()}
	if content == "<deleted>" {
		r.Op, r.Content = server.OpDelete, ""
	}
	r.Provenance = server.Provenance{Subject: r.Author, Surface: server.SurfaceAgent}
	return r
}

// lines writes a blame as "version:text" per line.
func lines(b blame.Blame) []string {
	var out []string
	for _, l := range b.Lines {
		out = append(out, strings.Join([]string{string(rune('0' + l.Version)), l.Text}, ":"))
	}
	return out
}

func TestBlame(t *testing.T) {
	tests := []struct {
		name    string
		history []string // the content of versions 1, 2, ...
		want    []string // "version:text" of each line of the last
	}{
		{"one revision", []string{"a\nb\n"}, []string{"1:a", "1:b"}},
		{"insertions", []string{"a\nc\n", "a\nb\nc\n", "a\nb\nc\nd\n"}, []string{"1:a", "2:b", "1:c", "3:d"}},
		{"insertion at the top", []string{"b\n", "a\nb\n"}, []string{"2:a", "1:b"}},
		{"deletions", []string{"a\nb\nc\n", "a\nc\n", "c\n"}, []string{"1:c"}},
		{"a changed line", []string{"a\nb\nc\n", "a\nB\nc\n"}, []string{"1:a", "2:B", "1:c"}},
		{"moved lines", []string{"a\nb\nc\n", "c\na\nb\n"}, []string{"2:c", "1:a", "1:b"}},
		{"duplicate lines", []string{"x\ny\n", "x\ny\nx\n", "x\nx\ny\nx\n"}, []string{"1:x", "3:x", "1:y", "2:x"}},
		{"deleted and created again", []string{"a\nb\n", "<deleted>", "a\nb\nc\n"}, []string{"3:a", "3:b", "3:c"}},
		{"deleted", []string{"a\n", "<deleted>"}, nil},
		{"emptied and refilled", []string{"a\n", "", "a\n"}, []string{"3:a"}},
		{"no final newline", []string{"a\nb", "a\nb\nc"}, []string{"1:a", "2:b", "2:c"}},
		{"a line back after a revision without it", []string{"a\nb\n", "a\n", "a\nb\n"}, []string{"1:a", "3:b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b blame.Builder
			for i, content := range tt.history {
				if err := b.Add(rev(int64(i+1), content)); err != nil {
					t.Fatal(err)
				}
			}
			got := b.Blame()
			if diff := cmp.Diff(tt.want, lines(got), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("blame (-want +got):\n%s", diff)
			}
			if got.Revision.Version != int64(len(tt.history)) || got.Revision.Content != "" {
				t.Errorf("blamed revision %+v; want version %d without content", got.Revision, len(tt.history))
			}
			checkOrigins(t, got)
		})
	}
}

// checkOrigins: Origins are the revisions the lines come from, each once,
// oldest first, with their provenance.
func checkOrigins(t *testing.T, b blame.Blame) {
	t.Helper()
	seen := map[int64]bool{}
	for _, l := range b.Lines {
		seen[l.Version] = true
	}
	if len(b.Origins) != len(seen) {
		t.Errorf("%d origins for the versions %v", len(b.Origins), seen)
	}
	for i, o := range b.Origins {
		if !seen[o.Version] || i > 0 && o.Version <= b.Origins[i-1].Version || o.Provenance.Subject != o.Author || o.Content != "" {
			t.Errorf("origin %d: %+v", i, o)
		}
	}
}

// TestBlameKeepsOriginsOfLongHistory: a builder forgets the revisions no
// line comes from, never one a line does.
func TestBlameKeepsOriginsOfLongHistory(t *testing.T) {
	var b blame.Builder
	_ = b.Add(rev(1, "kept\n"))
	for v := int64(2); v <= 500; v++ {
		_ = b.Add(rev(v, "kept\nchurn "+strings.Repeat("x", int(v%7))+"\n"))
	}
	got := b.Blame()
	if len(got.Origins) != 2 || got.Origins[0].Version != 1 || got.Origins[1].Version != 500 {
		t.Errorf("origins %+v; want versions 1 and 500", got.Origins)
	}
}
