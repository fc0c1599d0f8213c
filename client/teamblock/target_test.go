package teamblock

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/testkit/gittest"
)

// commit writes files into checkout and commits them.
func commit(t *testing.T, checkout string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(checkout, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		gittest.Run(t, checkout, "add", "-f", name)
	}
	gittest.Run(t, checkout, "commit", "-q", "-m", "files")
}

// isolateHome gives the test a home of its own (Gemini CLI's user
// settings are read from it).
func isolateHome(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	return home
}

// TestTargetsWriteAndRestore: for every target, in a checkout with and
// without a tracked file of the assistant's own, the block lands in the
// assistant's file, git status stays empty, writing it again writes
// nothing, and removal gives the checkout back byte for byte, the
// repository's info/exclude included.
func TestTargetsWriteAndRestore(t *testing.T) {
	isolateHome(t)
	tracked := map[string]map[string]string{
		"plain":             nil,
		"tracked AGENTS.md": {"AGENTS.md": "# Agents\n\nUse tabs.\n"},
		"tracked GEMINI.md": {"GEMINI.md": "# Gemini\n\nRun make check.\n"},
		"tracked rules":     {".cursor/rules/style.mdc": "---\nalwaysApply: true\n---\nx\n", ".github/copilot-instructions.md": "y\n"},
	}
	for name, files := range tracked {
		for _, target := range assistants.All {
			t.Run(name+"/"+target.Name, func(t *testing.T) {
				main, linked := gittest.NewCheckout(t, "")
				if files != nil {
					commit(t, main, files)
				}
				before := gittest.Tree(t, main)
				exclude := filepath.Join(main, ".git", "info", "exclude")
				excludeBefore := readFile(t, exclude)
				wrote, err := Write(main, target, testBlock)
				if err != nil || !wrote {
					t.Fatalf("Write = %v, %v", wrote, err)
				}
				st := State(main, target)
				if st.State != "in place" {
					t.Errorf("State = %+v", st)
				}
				got := readFile(t, filepath.Join(main, filepath.FromSlash(st.File)))
				if !strings.Contains(got, testBlock) || !strings.HasPrefix(got, target.Frontmatter) {
					t.Errorf("%s:\n%s", st.File, got)
				}
				for _, co := range []string{main, linked} {
					if s := gittest.Run(t, co, "status", "--porcelain", "--untracked-files=all"); s != "" {
						t.Errorf("git status in %s:\n%s", co, s)
					}
				}
				if !Current(main, target, testBlock) {
					t.Error("Current is false right after Write")
				}
				if wrote, err := Write(main, target, testBlock); err != nil || wrote {
					t.Errorf("the same block again: wrote %v, %v", wrote, err)
				}
				for name, text := range files {
					if got := readFile(t, filepath.Join(main, filepath.FromSlash(name))); got != text {
						t.Errorf("tracked %s changed: %q", name, got)
					}
				}
				if changed, err := Remove(main, target); err != nil || !changed {
					t.Fatalf("Remove = %v, %v", changed, err)
				}
				if after := gittest.Tree(t, main); !maps.Equal(before, after) {
					t.Errorf("after removal the checkout differs:\nbefore %q\nafter  %q", before, after)
				}
				if after := readFile(t, exclude); after != excludeBefore {
					t.Errorf("after removal info/exclude differs:\nbefore %q\nafter  %q", excludeBefore, after)
				}
				if !Current(main, target, "") {
					t.Error("Current(\"\") is false after Remove")
				}
			})
		}
	}
}

// TestCodexCarriesAgentsMd: AGENTS.override.md replaces AGENTS.md for
// Codex, so the file the agent writes carries AGENTS.md's text unchanged
// before the block and follows its edits; a user's own override gets the
// block only; a tracked override, or an AGENTS.md holding a marker line,
// is left alone.
func TestCodexCarriesAgentsMd(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	agents := "# Agents\n\nUse tabs.\r\nNo final newline"
	commit(t, main, map[string]string{"AGENTS.md": agents})
	override := filepath.Join(main, "AGENTS.override.md")
	if _, err := Write(main, assistants.Codex, testBlock); err != nil {
		t.Fatal(err)
	}
	want := copyBegin(assistants.Codex) + "\n" + agents + "\n" + copyEnd(assistants.Codex) + "\n" + testBlock
	if got := readFile(t, override); got != want {
		t.Fatalf("AGENTS.override.md:\n%q\nwant\n%q", got, want)
	}
	if st := State(main, assistants.Codex); st.State != "in place" {
		t.Errorf("State after the write = %+v", st)
	}
	edited := "# Agents\n\nUse spaces now.\n"
	os.WriteFile(filepath.Join(main, "AGENTS.md"), []byte(edited), 0o644)
	if Current(main, assistants.Codex, testBlock) {
		t.Error("Current is true after AGENTS.md changed")
	}
	if st := State(main, assistants.Codex); st.State != "out of date: its copy of AGENTS.md is not AGENTS.md as it is now" || st.Fix == "" {
		t.Errorf("State with a stale copy = %+v", st)
	}
	if wrote, err := Write(main, assistants.Codex, testBlock); err != nil || !wrote {
		t.Fatalf("after the edit: %v, %v", wrote, err)
	}
	if got := readFile(t, override); got != copyBegin(assistants.Codex)+"\n"+edited+copyEnd(assistants.Codex)+"\n"+testBlock {
		t.Errorf("the copy did not follow AGENTS.md's edit:\n%s", got)
	}
	// AGENTS.md gone: the copy goes, the block stays; back: it returns.
	os.Rename(filepath.Join(main, "AGENTS.md"), filepath.Join(main, "moved"))
	Write(main, assistants.Codex, testBlock)
	if got := readFile(t, override); got != testBlock {
		t.Errorf("without AGENTS.md: %q", got)
	}
	os.Rename(filepath.Join(main, "moved"), filepath.Join(main, "AGENTS.md"))
	Write(main, assistants.Codex, testBlock)
	if got := readFile(t, override); !strings.HasPrefix(got, copyBegin(assistants.Codex)+"\n"+edited) {
		t.Errorf("AGENTS.md back: %q", got)
	}

	// A teammate's AGENTS.md with a marker line: left alone, said why.
	os.WriteFile(filepath.Join(main, "AGENTS.md"), []byte("x\n"+End+"\n"), 0o644)
	before := readFile(t, override)
	if _, err := Write(main, assistants.Codex, testBlock); !errors.Is(err, ErrCarriedMarker) || Fix(assistants.Codex, err) == "" {
		t.Errorf("marker in AGENTS.md: %v", err)
	}
	if readFile(t, override) != before {
		t.Error("the override changed although AGENTS.md holds a marker")
	}
	os.WriteFile(filepath.Join(main, "AGENTS.md"), []byte(edited), 0o644)

	// The user's own override (written before the agent came): the
	// block is added at its end, nothing carried; removal restores it.
	os.Remove(override)
	own := "# My override\n\nBe terse.\n"
	os.WriteFile(override, []byte(own), 0o600)
	if _, err := Write(main, assistants.Codex, testBlock); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, override); got != own+testBlock {
		t.Errorf("the user's override became %q", got)
	}
	Remove(main, assistants.Codex)
	if got := readFile(t, override); got != own {
		t.Errorf("after removal %q", got)
	}

	// A tracked override is never edited.
	commit(t, main, map[string]string{"AGENTS.override.md": own})
	if _, err := Write(main, assistants.Codex, testBlock); !errors.Is(err, ErrTracked) {
		t.Errorf("tracked override: %v", err)
	}
	if st := State(main, assistants.Codex); !strings.Contains(st.State, "tracked") || !strings.Contains(st.Fix, "git rm --cached AGENTS.override.md") {
		t.Errorf("State = %+v", st)
	}
}

// bigBlock renders an index of n lines.
func bigBlock(n int) string {
	var idx strings.Builder
	for i := range n {
		idx.WriteString("- [Topic " + strings.Repeat("x", 40) + "](t.md) — line " + string(rune('a'+i%26)) + "\n")
	}
	return Render(Input{Repo: "acme/api", TeamDir: testTeam, Index: idx.String()}).Text
}

// TestTargetBudgets: Codex's 32 KiB (what AGENTS.md leaves of it) and
// Windsurf's 12,000 characters cut index lines from the block's end with
// a warning line; no room at all is an error that leaves the file alone.
func TestTargetBudgets(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	agents := strings.Repeat("Keep this line of AGENTS.md.\n", 1000) // 29,000 bytes
	commit(t, main, map[string]string{"AGENTS.md": agents})
	block := bigBlock(150)
	if len(block) < 12000 {
		t.Fatalf("test block too small: %d", len(block))
	}
	if _, err := Write(main, assistants.Codex, block); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, filepath.Join(main, "AGENTS.override.md"))
	if len(got) > 32*1024 || !strings.Contains(got, agents) || !strings.Contains(got, "cut to fit Codex CLI's limit of 32768 bytes") ||
		!strings.HasSuffix(got, End+"\n") {
		t.Errorf("codex file of %d bytes:\n%s", len(got), got[len(agents):])
	}
	if !Current(main, assistants.Codex, block) {
		t.Error("a cut block is not Current")
	}
	if _, err := Write(main, assistants.Windsurf, block); err != nil {
		t.Fatal(err)
	}
	ws := readFile(t, filepath.Join(main, ".windsurf/rules/teammem.md"))
	if n := utf8.RuneCountInString(ws); n > 12000 || !strings.Contains(ws, "limit of 12000 characters") {
		t.Errorf("windsurf file of %d characters", n)
	}
	os.WriteFile(filepath.Join(main, "AGENTS.md"), []byte(strings.Repeat("y", 32*1024)), 0o644)
	before := readFile(t, filepath.Join(main, "AGENTS.override.md"))
	if _, err := Write(main, assistants.Codex, block); !errors.Is(err, ErrNoRoom) {
		t.Errorf("AGENTS.md of 32 KiB: %v", err)
	}
	if readFile(t, filepath.Join(main, "AGENTS.override.md")) != before {
		t.Error("the file changed although the block had no room")
	}
}

// TestGeminiSideFile: with a tracked GEMINI.md the block goes to a side
// file that the workspace settings the agent writes make Gemini CLI read,
// unless a settings file of the user's decides which files it reads.
func TestGeminiSideFile(t *testing.T) {
	home := isolateHome(t)
	main, _ := gittest.NewCheckout(t, "")
	commit(t, main, map[string]string{"GEMINI.md": "tracked\n"})
	before := gittest.Tree(t, main)
	if _, err := Write(main, assistants.Gemini, testBlock); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(main, "GEMINI.teammem.md")); got != testBlock {
		t.Errorf("side file %q", got)
	}
	if got := readFile(t, filepath.Join(main, ".gemini/settings.json")); got != geminiSettingsText(assistants.Gemini) {
		t.Errorf("settings %q", got)
	}
	if st := State(main, assistants.Gemini); st.File != "GEMINI.teammem.md" || st.State != "in place" {
		t.Errorf("State %+v", st)
	}
	// The settings deleted by someone: not Current, written again.
	os.Remove(filepath.Join(main, ".gemini/settings.json"))
	if Current(main, assistants.Gemini, testBlock) {
		t.Error("Current without the settings file")
	}
	Write(main, assistants.Gemini, testBlock)
	Remove(main, assistants.Gemini)
	if after := gittest.Tree(t, main); !maps.Equal(before, after) {
		t.Errorf("after removal:\n%q\n%q", before, after)
	}

	// The user's settings set context.fileName: theirs to change.
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	user := filepath.Join(home, ".gemini", "settings.json")
	os.WriteFile(user, []byte(`{"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}`), 0o644)
	_, err := Write(main, assistants.Gemini, testBlock)
	if !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), user) || !strings.Contains(Fix(assistants.Gemini, err), "GEMINI.teammem.md") {
		t.Errorf("user settings with context.fileName: %v", err)
	}
	if _, err := os.Stat(filepath.Join(main, ".gemini")); err == nil {
		t.Error("the workspace settings were written over the user's choice")
	}
	os.WriteFile(user, []byte(`{"context": {"fileName": ["AGENTS.md", "GEMINI.md", "GEMINI.teammem.md"]}}`), 0o644)
	if _, err := Write(main, assistants.Gemini, testBlock); err != nil {
		t.Errorf("user settings naming the side file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(main, ".gemini")); err == nil {
		t.Error("workspace settings written although the user's name the side file")
	}
}

// TestTargetRefusesSymlinkedFolder: a folder of the target's file that is
// a symbolic link (a way out of the checkout) is refused, its target
// untouched.
func TestTargetRefusesSymlinkedFolder(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	elsewhere := t.TempDir()
	os.Symlink(elsewhere, filepath.Join(main, ".cursor"))
	if _, err := Write(main, assistants.Cursor, testBlock); !errors.Is(err, ErrNotRegular) {
		t.Errorf("symlinked .cursor: %v", err)
	}
	if tree := gittest.Tree(t, elsewhere); len(tree) != 0 {
		t.Errorf("written through the link: %q", tree)
	}
}

// TestCopilotGuardsHashReferences: "#file:" and its kin in the index
// reach Copilot's file only escaped.
func TestCopilotGuardsHashReferences(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	b := Render(Input{Repo: "acme/api", TeamDir: testTeam, Index: "#file:'../../.env'\n- see #FILE:.env and #tool:run #prompt:x\n"})
	if _, err := Write(main, assistants.Copilot, b.Text); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, filepath.Join(main, ".github/instructions/teammem.instructions.md"))
	for _, line := range strings.Split(got, "\n") {
		low := strings.ToLower(line)
		for _, ref := range []string{"#file:", "#tool:", "#prompt:"} {
			if i := strings.Index(low, ref); i >= 0 && (i == 0 || low[i-1] != '\\') {
				t.Errorf("unguarded %s in %q", ref, line)
			}
		}
	}
}

// TestWriteOnlyWhenChanged: a target's file keeps its modification time
// when the block is the same.
func TestWriteOnlyWhenChanged(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	Write(main, assistants.Cursor, testBlock)
	p := filepath.Join(main, ".cursor/rules/teammem.mdc")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	Write(main, assistants.Cursor, testBlock)
	if fi, _ := os.Stat(p); !fi.ModTime().Equal(old) {
		t.Error("the same block rewrote the file")
	}
}

// FuzzTargetRestores: for any text a target's file holds before, putting
// the block in and taking it out again gives that text back byte for byte
// (or no file for none), in every target's format, and putting the same
// block in twice changes nothing. The one text not given back is a file
// holding exactly the frontmatter the agent writes, which it takes for its
// own.
func FuzzTargetRestores(f *testing.F) {
	for _, s := range []string{"", "x", "x\n", "\uFEFF---\na: b\n---\nbody", "---\nunclosed\n", "\r\n", "mine\n" + End + " not a marker\n", assistants.Cursor.Frontmatter + "x\n"} {
		f.Add(s)
	}
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, old string) {
		for _, target := range assistants.All {
			if old == target.Frontmatter && old != "" {
				continue
			}
			fl := &file{co: gitremoteCheckout(root), t: target, name: target.File}
			with, err := fl.compose(old, testBlock)
			if err != nil {
				if errors.Is(err, ErrDamaged) {
					continue
				}
				t.Fatalf("%s: %v", target.Name, err)
			}
			if again, err := fl.compose(with, testBlock); err != nil || again != with {
				t.Fatalf("%s: the same block twice changed %q into %q (%v)", target.Name, with, again, err)
			}
			back, err := fl.compose(with, "")
			if err != nil || back != old {
				t.Fatalf("%s: %q with the block %q, without %q (%v)", target.Name, old, with, back, err)
			}
		}
	})
}

// TestInputs: the files besides a target's own that decide what it holds
// are the file it carries and, for Gemini CLI, both settings files.
func TestInputs(t *testing.T) {
	home := isolateHome(t)
	co := t.TempDir()
	for _, tc := range []struct {
		t    assistants.Assistant
		want []string
	}{
		{assistants.Claude, nil},
		{assistants.Codex, []string{filepath.Join(co, "AGENTS.md")}},
		{assistants.Gemini, []string{filepath.Join(co, ".gemini", "settings.json"), filepath.Join(home, ".gemini", "settings.json")}},
	} {
		if got := Inputs(co, tc.t); !slices.Equal(got, tc.want) {
			t.Errorf("Inputs(%s) = %q; want %q", tc.t.Name, got, tc.want)
		}
	}
}
