package httpapi_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
)

// proposal reads the next event, which must be a proposal's without an
// id, and returns it.
func (c *sseConn) proposal() api.Proposal {
	c.t.Helper()
	id, typ, data := c.event()
	var p api.Proposal
	if err := json.Unmarshal([]byte(data), &p); err != nil || typ != api.EventProposal || id != "" {
		c.t.Fatalf("frame id %q type %q data %q: want a proposal event without an id (%v)", id, typ, data, err)
	}
	return p
}

// decided reads the next two events, an approval's change and its
// proposal's decision, in either order, and returns the proposal and the
// change's version.
func (c *sseConn) decided() (api.Proposal, int64) {
	c.t.Helper()
	var p api.Proposal
	var version int64
	for range 2 {
		id, typ, data := c.event()
		switch typ {
		case api.EventProposal:
			_ = json.Unmarshal([]byte(data), &p)
		case api.EventChange:
			var ev api.Event
			_ = json.Unmarshal([]byte(data), &ev)
			version = ev.Version
		default:
			c.t.Fatalf("frame id %q type %q data %q: want a change or a proposal", id, typ, data)
		}
	}
	return p, version
}

// TestProposalEvents: a writer's push under review tells the repository's
// reviewers and its author, on their events streams, of the proposal made
// (a frame without an id: Last-Event-ID stays the version), and its
// approval of the decision beside the change it wrote; another writer's,
// a reader's and a propose-only admin token's streams hear only the
// change.
func TestProposalEvents(t *testing.T) {
	reviewStores(t, func(t *testing.T, ts *testServer) {
		bob := ts.Token("bob", "acme/api:write")
		others := map[string]string{"eve": ts.Token("eve", "acme/api:write"), "rita": ts.Token("rita", "acme/api:read"),
			"a propose-only admin": ts.ProposeOnlyToken("bot", "acme/api:admin")}
		ts.Put("acme/api", map[string]string{"a.md": "one\n"}, nil, http.StatusOK)
		ts.setPolicy(ts.Admin, "acme/api", "changes", http.StatusOK)
		streams := map[string]*sseConn{}
		all := map[string]string{"admin": ts.Admin, "bob": bob}
		maps.Copy(all, others)
		for who, tok := range all {
			streams[who] = ts.openEvents(api.PathEvents+"?repo=acme/api", tok)
			streams[who].frame() // the retry advice: subscribed
		}
		res, _ := ts.putAs(bob, "acme/api", map[string]string{"a.md": "two\n"})
		for _, who := range []string{"admin", "bob"} {
			if p := streams[who].proposal(); p.ID != res.Proposal.ID || p.State != "open" || p.Author != "bob" || strings.Join(p.Keys, ",") != "a.md" {
				t.Errorf("%s's stream told of %+v; want bob's open #%d of a.md", who, p, res.Proposal.ID)
			}
		}
		ts.decide(ts.Admin, res.Proposal.ID, "approve", "good", http.StatusOK)
		for _, who := range []string{"admin", "bob"} {
			if p, v := streams[who].decided(); p.State != "approved" || p.DecidedBy != "admin" || p.Comment != "good" || v != 2 {
				t.Errorf("%s's stream after the approval: %+v and version %d; want #%d approved by admin and version 2", who, p, v, res.Proposal.ID)
			}
		}
		for who := range others {
			if ev := streams[who].change(); ev.Version != 2 || ev.Provenance.ApprovedBy != "admin" {
				t.Errorf("%s's stream: %+v; want only the approval's change, version 2", who, ev)
			}
		}
	})
}

// TestProposalEventsAcrossReplicas: two servers on one Postgres, each with
// its LISTEN broker: a proposal made and approved through one is told to
// the reviewer subscribed to the other, and the server it was made
// through tells its own subscriber once, not again when its own notice
// comes back.
func TestProposalEventsAcrossReplicas(t *testing.T) {
	a, b := listeningReplicas(t)
	bob := a.Token("bob", "acme/api:write")
	b.Put("acme/api", map[string]string{"a.md": "one\n"}, nil, http.StatusOK)
	b.setPolicy(b.Admin, "acme/api", "changes", http.StatusOK)
	onA, onB := a.openEvents(api.PathEvents+"?repo=acme/api", a.Admin), b.openEvents(api.PathEvents+"?repo=acme/api", b.Admin)
	onA.frame()
	onB.frame()
	res, _ := b.putAs(bob, "acme/api", map[string]string{"a.md": "two\n"})
	for name, c := range map[string]*sseConn{"A": onA, "B": onB} {
		if p := c.proposal(); p.ID != res.Proposal.ID || p.State != "open" {
			t.Errorf("the reviewer on %s was told %+v; want #%d open", name, p, res.Proposal.ID)
		}
	}
	b.decide(b.Admin, res.Proposal.ID, "approve", "", http.StatusOK)
	for name, c := range map[string]*sseConn{"A": onA, "B": onB} {
		if p, v := c.decided(); p.ID != res.Proposal.ID || p.State != "approved" || v != 2 {
			t.Errorf("the reviewer on %s after the approval: %+v, version %d", name, p, v)
		}
	}
}
