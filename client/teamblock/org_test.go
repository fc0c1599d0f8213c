package teamblock

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/testkit/gittest"
)

const testOrg = "/home/ana/.claude/org-memory/acme"

// TestRenderOrg: the org memory's part follows the team index, its links
// lead into the org folder, and a line linking out of it is left out.
func TestRenderOrg(t *testing.T) {
	in := Input{Repo: "acme/api", TeamDir: testTeam, Index: "- [Deploys](a.md) — deploy runbook\n",
		Orgs: []Org{{Repo: "acme/.memory", Dir: testOrg + "/", Index: "- [Review](review.md) — our review rules\n- [Out](../../x.md) — escape\n"}}}
	b := Render(in)
	team, org := strings.Index(b.Text, "[Deploys]("+testTeam+"/a.md)"), strings.Index(b.Text, "[Review]("+testOrg+"/review.md) — our review rules")
	if team < 0 || org < team || !strings.Contains(b.Text, orgHeading+"acme\n") || !strings.Contains(b.Text, "`"+testOrg+"/`") {
		t.Fatalf("block:\n%s", b.Text)
	}
	if strings.Contains(b.Text, "escape") || b.Omitted != 1 || b.Truncated {
		t.Errorf("omitted %d, truncated %v:\n%s", b.Omitted, b.Truncated, b.Text)
	}
	// Nested groups: nearest first, each its own part.
	in.Orgs = append(in.Orgs, Org{Repo: "acme/.memory", Dir: testOrg, Index: "- [Top](t.md) — top rules\n"})
	in.Orgs[0] = Org{Repo: "acme/sub/.memory", Dir: testOrg + "+sub", Index: "- [Sub](s.md) — sub rules\n"}
	b = Render(in)
	if i, j := strings.Index(b.Text, orgHeading+"acme/sub"), strings.Index(b.Text, orgHeading+"acme\n"); i < 0 || j < i {
		t.Errorf("nested:\n%s", b.Text)
	}
	// An org memory nobody wrote costs nothing: the block is as without.
	plain := Input{Repo: "acme/api", TeamDir: testTeam, Index: "- [Deploys](a.md) — deploy runbook\n"}
	with := plain
	with.Orgs = []Org{{Repo: "acme/.memory", Dir: testOrg, Index: "\n\n"}, {Repo: "group/.memory", Dir: testOrg}}
	if Render(with) != Render(plain) {
		t.Errorf("empty org memories changed the block:\n%s", Render(with).Text)
	}
}

// TestOrgIndexBudget: the team index and the org memories' share one
// budget; the org lines go first and the block says how many of which it
// left out.
func TestOrgIndexBudget(t *testing.T) {
	var team, org strings.Builder
	for i := range 150 {
		fmt.Fprintf(&team, "- team line %d\n", i)
		fmt.Fprintf(&org, "- org line %d\n", i)
	}
	b := Render(Input{Repo: "acme/api", TeamDir: testTeam, Index: team.String(),
		Orgs: []Org{{Repo: "acme/.memory", Dir: testOrg, Index: org.String()}}})
	if !b.Truncated || !strings.Contains(b.Text, "- team line 149\n") || strings.Contains(b.Text, "- org line 149\n") {
		t.Fatalf("truncated %v:\n%s", b.Truncated, b.Text)
	}
	// 150 team lines, a blank, the heading, a blank, the guidance, a
	// blank: 45 of the 200 are left for org lines.
	if !strings.Contains(b.Text, "- org line 44\n") || strings.Contains(b.Text, "- org line 45\n") ||
		!strings.Contains(b.Text, "The index was cut to 200 lines and 25000 bytes: 105 lines of the org memory of acme left out") {
		t.Errorf("block:\n%s", b.Text[len(b.Text)-600:])
	}
}

// TestOrgCutToAssistantBudget: cut to an assistant's limit, the block
// leaves org lines out first and names them.
func TestOrgCutToAssistantBudget(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	var org strings.Builder
	for i := range 190 {
		fmt.Fprintf(&org, "- org line %d %s\n", i, strings.Repeat("x", 60))
	}
	block := Render(Input{Repo: "acme/api", TeamDir: testTeam, Index: "- [Deploys](a.md) — deploy runbook\n",
		Orgs: []Org{{Repo: "acme/.memory", Dir: testOrg, Index: org.String()}}}).Text
	if _, err := Write(main, assistants.Windsurf, block); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(main, ".windsurf/rules/teammem.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.Contains(got, "[Deploys]") || strings.Contains(got, "org line 189") ||
		!strings.Contains(got, "The index was cut to fit Windsurf's limit of 12000 characters: ") ||
		!strings.Contains(got, " lines of the org memory of acme left out") {
		t.Errorf("windsurf file:\n%s", got[max(0, len(got)-500):])
	}
}
