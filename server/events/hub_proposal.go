package events

import (
	"context"
	"time"

	"github.com/teammem/teammem/server"
)

// proposalReadTimeout bounds the read of a proposal another process
// announced.
const proposalReadTimeout = 10 * time.Second

// PublishProposal tells the subscribers of prop's repository that it was
// made, amended or decided (server.ProposalEvents), and the other
// processes through the broker when it carries proposals
// (server.ProposalBroker). A broker failure is logged, never returned.
func (h *Hub) PublishProposal(ctx context.Context, prop server.Proposal) {
	if t := h.topic(prop.Repo); t != nil {
		t.proposal(&prop)
	}
	pb, ok := h.broker.(server.ProposalBroker)
	if !ok {
		return
	}
	go func() {
		if err := pb.PublishProposal(context.WithoutCancel(ctx), prop.Repo, prop.ID); err != nil {
			h.log.Warn("proposal notice not sent to the other servers", "repo", prop.Repo, "proposal", prop.ID, "error", err)
		}
	}()
}

// NotifyProposal reads a proposal another process announced and tells its
// repository's subscribers, when it has any (server.ProposalReceiver).
// The read runs in the background; one that fails is logged and the
// notice dropped.
func (h *Hub) NotifyProposal(repo string, id int64) {
	if h.opts.Review == nil || h.topic(repo) == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(h.ctx, proposalReadTimeout)
		defer cancel()
		prop, err := h.opts.Review.Proposal(ctx, id)
		if err != nil {
			if h.ctx.Err() == nil {
				h.log.Warn("reading an announced proposal failed", "repo", repo, "proposal", id, "error", err)
			}
			return
		}
		if prop.Repo != repo {
			return
		}
		if t := h.topic(repo); t != nil {
			t.proposal(&prop)
		}
	}()
}

// proposal queues prop for every subscriber of the topic.
func (t *topic) proposal(prop *server.Proposal) {
	t.lock()
	defer t.unlock()
	t.fanout(item{proposal: prop})
}
