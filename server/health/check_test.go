package health_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
)

var testNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// written is when every fixture topic was last changed.
var written = testNow.Add(-100 * 24 * time.Hour)

// input is the Input of a case, as a store would give it.
func input(c kindCase) health.Input {
	in := health.Input{Repo: "github.com/acme/app", Version: 1, Now: testNow, UnusedAfter: c.unused,
		ReadsSince: written}
	for _, k := range slices.Sorted(maps.Keys(c.files)) {
		in.Topics = append(in.Topics, server.Entry{Key: k, Content: c.files[k], Version: 1, UpdatedAt: written,
			Checksum: protocol.EntryChecksum([]byte(c.files[k])), Size: int64(len(c.files[k]))})
	}
	in.Reads = reads(c)
	for _, k := range slices.Sorted(maps.Keys(c.stale)) {
		in.Stale = append(in.Stale, server.StaleVerdict{StaleReport: server.StaleReport{
			Repo: in.Repo, Key: k, Version: 1, Commit: "0123456789abcdef0123456789abcdef01234567",
			Findings: c.stale[k], Current: true}})
	}
	return in
}

// reads is when each key of a case was last read.
func reads(c kindCase) map[string]time.Time {
	out := map[string]time.Time{}
	for k, ago := range c.reads {
		out[k] = testNow.Add(-ago)
	}
	return out
}

// keysOf returns the keys of the findings of kind.
func keysOf(r health.Report, kind string) [][]string {
	var out [][]string
	for _, f := range r.Findings {
		if f.Kind == kind {
			out = append(out, f.Keys)
		}
	}
	return out
}

func TestCheckKinds(t *testing.T) {
	for _, c := range kindCases {
		t.Run(c.kind+"/"+c.name, func(t *testing.T) {
			r := health.Check(input(c))
			if diff := cmp.Diff(c.want, keysOf(r, c.kind)); diff != "" {
				t.Errorf("findings of %s (-want +got):\n%s\nall: %+v", c.kind, diff, r.Findings)
			}
		})
	}
}

func TestNearDuplicateScore(t *testing.T) {
	r := health.Check(input(kindCases[2]))
	for _, f := range r.Findings {
		if f.Kind == health.KindNearDuplicate && (f.Score < health.NearThreshold || f.Score > 1) {
			t.Errorf("score %v out of [%v, 1]", f.Score, health.NearThreshold)
		}
	}
}

func TestLoadedLines(t *testing.T) {
	for _, tt := range []struct {
		content       string
		loaded, total int
	}{
		{"", 0, 0},
		{"a\nb\n\n\n", 2, 2},
		{bigIndex(201, 10), 200, 201},
		{bigIndex(130, 200), 125, 130},
	} {
		loaded, total := health.LoadedLines(tt.content)
		if loaded != tt.loaded || total != tt.total {
			t.Errorf("LoadedLines(%.20q…) = %d, %d; want %d, %d", tt.content, loaded, total, tt.loaded, tt.total)
		}
	}
}

// TestNearDuplicatesAmongTemplates: in a repository of topics that all
// open with one long template, only the lesson saved twice in other
// words is a near-duplicate.
func TestNearDuplicatesAmongTemplates(t *testing.T) {
	files := map[string]string{}
	for i := range 120 {
		files[fmt.Sprintf("t%03d.md", i)] = header + header + fmt.Sprintf("\nTopic %d: the %s service keeps its %s in %s.\n",
			i, word(uint64(i*7+1000)), word(uint64(i*13+2000)), word(uint64(i*17+3000)))
	}
	files["ci-disk.md"] = header + header + "\n" + reworded1 + "\n"
	files["ci-space.md"] = header + header + "\n" + reworded2 + "\n"
	r := health.Check(input(kindCase{files: files}))
	if got := keysOf(r, health.KindNearDuplicate); len(got) != 1 || got[0][0] != "ci-disk.md" || got[0][1] != "ci-space.md" {
		t.Errorf("near-duplicates %v; want ci-disk.md and ci-space.md alone", got)
	}
}
