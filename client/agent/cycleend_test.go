package agent

import (
	"context"
	"testing"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/memcore/secrets/secretstest"
)

// endsSeen records what each cycle's end said.
type endsSeen struct{ ends []cycleEnd }

func (s *endsSeen) cycleDone(_ context.Context, c *cycleEnd, r *Report) {
	s.ends = append(s.ends, *c)
	r.Block = append(r.Block, "seen")
}

// TestSubscribersSeeEveryCycleEnd: a subscriber gets each cycle's end with
// what the cycle found (the server's live entries, what is withheld, an
// idle cycle, a refused pull, the periodic rescan once) and its words reach
// the cycle's report.
func TestSubscribersSeeEveryCycleEnd(t *testing.T) {
	secret := "token " + secretstest.GitHubToken() + "\n"
	r := newRig(t, map[string]string{"a.md": "a\n"}, map[string]string{"keys.md": secret}, nil)
	seen := &endsSeen{}
	r.engine.subscribers = append(r.engine.subscribers, seen)
	r.engine.local.watched(true)
	rep := r.sync(t)
	if len(seen.ends) != 1 || len(rep.Block) != 1 || rep.Block[0] != "seen" {
		t.Fatalf("after one sync: %d ends, report block %q", len(seen.ends), rep.Block)
	}
	first := seen.ends[0]
	if first.err != nil || first.idle || first.unreadable || first.recheck || first.live["a.md"] == "" {
		t.Errorf("first cycle's end: %+v", first)
	}
	if !first.withheld("keys.md") || first.withheld("a.md") {
		t.Error("withheld does not tell the credential from the shared file")
	}
	if topics := first.topics(); len(topics) != 1 || topics[0].Key != "a.md" {
		t.Errorf("topics %+v, want a.md only", topics)
	}

	r.sync(t) // reads the file the first sync wrote
	r.engine.recheck = true
	r.sync(t)
	r.sync(t)
	last := seen.ends[len(seen.ends)-2:]
	if !last[0].idle || !last[1].idle || !last[0].recheck || last[1].recheck {
		t.Errorf("idle cycles' ends: idle %v %v, recheck %v %v", last[0].idle, last[1].idle, last[0].recheck, last[1].recheck)
	}

	r.remote.getErr = client.ErrForbidden
	if _, err := r.engine.Pull(context.Background()); err == nil {
		t.Fatal("a refused pull succeeded")
	}
	if end := seen.ends[len(seen.ends)-1]; end.err == nil || !end.unreadable {
		t.Errorf("a refused pull's end: err %v, unreadable %v", end.err, end.unreadable)
	}
}
