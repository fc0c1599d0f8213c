package session

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/internal/memtest"
)

func TestDefaultSessionTemplateSections(t *testing.T) {
	want := []string{
		"# Session Title", "# Current State", "# Task specification", "# Files and Functions",
		"# Workflow", "# Errors & Corrections", "# Codebase and System Documentation",
		"# Learnings", "# Key results", "# Worklog",
	}
	var got []string
	for _, s := range splitSections(DefaultSessionTemplate) {
		if s.header == "" {
			continue
		}
		got = append(got, s.header)
		if len(s.lines) == 0 || !strings.HasPrefix(s.lines[0], "_") || !strings.HasSuffix(s.lines[0], "_") {
			t.Errorf("section %q has no italic description line: %q", s.header, s.lines)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("template sections (-want +got):\n%s", diff)
	}
}

func TestEnsureSessionNotes(t *testing.T) {
	root := t.TempDir()
	base := filepath.Join(root, "base")
	project := memcore.ProjectDir(base, "/home/ana/api")
	n, err := EnsureSessionNotes(project, "s1", base)
	if err != nil {
		t.Fatal(err)
	}
	wantPath := filepath.Join(project, "s1", "session-memory", "summary.md")
	if n.Path != wantPath || !n.Created || n.Content != DefaultSessionTemplate {
		t.Fatalf("first EnsureSessionNotes = %+v", n)
	}
	if info, err := os.Stat(wantPath); err != nil {
		t.Fatal(err)
	} else if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("notes mode = %v, want 0600", info.Mode().Perm())
	}
	if !IsEmpty(n.Content, DefaultSessionTemplate) {
		t.Error("fresh notes are not empty")
	}

	edited := DefaultSessionTemplate + "\nworked on the parser\n"
	memtest.Write(t, wantPath, edited)
	n, err = EnsureSessionNotes(project, "s1", base)
	if err != nil || n.Created || n.Content != edited {
		t.Fatalf("second EnsureSessionNotes = %+v, %v; want the edited file", n, err)
	}
	if IsEmpty(n.Content, DefaultSessionTemplate) {
		t.Error("edited notes are empty")
	}

	memtest.Write(t, filepath.Join(base, "session-memory", "config", "template.md"), "# Mine\n_custom_\n")
	n, err = EnsureSessionNotes(project, "s2", base)
	if err != nil || n.Content != "# Mine\n_custom_\n" {
		t.Fatalf("EnsureSessionNotes with a user template = %+v, %v", n, err)
	}
}

func TestSessionNotesPathRejectsEscapes(t *testing.T) {
	for _, id := range []string{"", ".", "..", "../x", `a\b`, "a/b", "c:x", "nul\x00"} {
		if _, err := SessionNotesPath("/p", id); !errors.Is(err, ErrInvalidSessionID) {
			t.Errorf("SessionNotesPath(%q) error = %v, want ErrInvalidSessionID", id, err)
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0}, {"a", 1}, {"abcd", 1}, {"abcde", 2}, {"日本語です", 2}, {strings.Repeat("x", 8000), 2000},
	}
	for _, tt := range tests {
		if got := EstimateTokens(tt.in); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// bigLines returns n lines of width characters each.
func bigLines(n, width int) string {
	return strings.Repeat(strings.Repeat("w", width-1)+"\n", n)
}

func TestAnalyzeSections(t *testing.T) {
	content := "preamble\n# Small\n_d_\nshort\n# Big\n" + bigLines(100, 100) +
		"# Code\n```sh\n# not a header\n```\n# Bigger\n" + bigLines(100, 120)
	r := AnalyzeSections(content)
	var headers []string
	for _, s := range r.Sections {
		headers = append(headers, s.Header)
	}
	if diff := cmp.Diff([]string{"# Small", "# Big", "# Code", "# Bigger"}, headers); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	wantOversized := []SectionSize{{"# Bigger", 3000}, {"# Big", 2500}}
	if diff := cmp.Diff(wantOversized, r.Oversized); diff != "" {
		t.Errorf("oversized (-want +got):\n%s", diff)
	}
	if r.OverBudget || r.TotalTokens != EstimateTokens(content) {
		t.Errorf("total %d, over budget %v", r.TotalTokens, r.OverBudget)
	}
	if !AnalyzeSections(bigLines(500, 100)).OverBudget {
		t.Error("50,000 characters are not over budget")
	}
}

func TestTruncateForCompact(t *testing.T) {
	if got, cut := TruncateForCompact(DefaultSessionTemplate); cut || got != DefaultSessionTemplate {
		t.Fatalf("template changed by TruncateForCompact (cut %v)", cut)
	}
	big := "# A\n_d_\n" + bigLines(100, 100) + "# B\n_e_\nkeep me\n"
	got, cut := TruncateForCompact(big)
	if !cut {
		t.Fatal("a 10,000-character section was not cut")
	}
	sections := splitSections(got)
	a := strings.Join(sections[1].lines, "\n")
	if n := len(a); n > maxCompactSectionChars+len(SectionTruncatedMarker)+2 {
		t.Errorf("cut section still has %d characters", n)
	}
	if !strings.HasSuffix(a, "\n"+SectionTruncatedMarker) {
		t.Errorf("cut section does not end with the marker: %q", a[len(a)-60:])
	}
	for _, line := range sections[1].lines {
		if line != "" && line != "_d_" && line != SectionTruncatedMarker && len(line) != 99 {
			t.Fatalf("a line was cut mid-line: %q", line)
		}
	}
	if !strings.HasSuffix(got, "# B\n_e_\nkeep me\n") {
		t.Errorf("the small section changed: %q", got[len(got)-40:])
	}

	fenced := "# A\n```go\n" + bigLines(100, 100) + "```\n"
	got, _ = TruncateForCompact(fenced)
	if !strings.Contains(got, "\n```\n\n"+SectionTruncatedMarker) {
		t.Errorf("an open fence was not closed before the marker: %q", got[len(got)-80:])
	}
}

func TestShouldExtract(t *testing.T) {
	type step struct {
		tokens, toolCalls int
		lastTurnTools     bool
		want              bool
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"below init threshold", []step{{9999, 10, false, false}}},
		{"init reached, natural pause", []step{{10000, 0, false, true}}},
		{"init reached, tools mid-turn but enough calls", []step{{12000, 3, true, true}}},
		{"init reached, tools mid-turn, too few calls", []step{{12000, 2, true, false}}},
		{"growth too small after extraction", []step{{10000, 0, false, true}, {14999, 5, false, false}, {15000, 0, false, true}}},
		{"initialized stays initialized", []step{{10000, 0, true, false}, {9000, 0, false, true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s SessionState
			for i, st := range tt.steps {
				got := ShouldExtract(&s, st.tokens, st.toolCalls, st.lastTurnTools)
				if got != st.want {
					t.Fatalf("step %d: ShouldExtract(%d, %d, %v) = %v, want %v", i, st.tokens, st.toolCalls, st.lastTurnTools, got, st.want)
				}
				if got {
					s.RecordExtraction(st.tokens)
				}
			}
		})
	}
}
