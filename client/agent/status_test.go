package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/teammem/teammem/client/assistants"
	"github.com/teammem/teammem/client/teamblock"
	"github.com/teammem/teammem/testkit/gittest"
)

// TestReadStatusTeamBlock: status tells, per checkout, whether the block
// is in place, missing, turned off, or why the agent cannot write it.
func TestReadStatusTeamBlock(t *testing.T) {
	main, _ := gittest.NewCheckout(t, "")
	other, _ := gittest.NewCheckout(t, "")
	if _, err := teamblock.Write(main, assistants.Claude, testBlock); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	read := func(o StatusOptions) []BlockStatus {
		t.Helper()
		o.Repo, o.Dir, o.StateDir, o.Server = "acme/api", dir, t.TempDir(), "http://s"
		st, err := ReadStatus(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return st.TeamBlock
	}
	list := func() ([]string, error) { return []string{main, other}, nil }
	got := read(StatusOptions{Checkouts: list})
	if len(got) != 2 || got[0] != (BlockStatus{Checkout: main, Assistant: "claude", File: "CLAUDE.local.md", State: "in place"}) || got[1] != (BlockStatus{Checkout: other, Assistant: "claude", File: "CLAUDE.local.md", State: "missing"}) {
		t.Errorf("status = %+v; want main in place, other missing", got)
	}
	got = read(StatusOptions{Checkouts: list, NoInject: true})
	if len(got) != 2 || got[0].State != "off (--no-inject)" {
		t.Errorf("with NoInject: %+v", got)
	}
	got = read(StatusOptions{Checkouts: func() ([]string, error) { return nil, errors.New("no git") }})
	if len(got) != 1 || !strings.Contains(got[0].State, "no git") {
		t.Errorf("checkouts failing: %+v", got)
	}
	if got = read(StatusOptions{}); got == nil || len(got) != 0 {
		t.Errorf("without checkouts: %+v; want an empty list", got)
	}
}
