package agent

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/internal/atomicfile"
	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/protocol"
)

// A push to a repository that reviews writes may land in part and leave
// the rest in an open proposal of this agent's subject (the answer's
// proposal). Each key held so stays as it is on disk, is neither pushed
// again (until its content changes: the push then amends the proposal)
// nor merged into a conflict copy; the agent asks after the proposal every
// cycle. Approved, the server's change arrives like any other and merges
// with the local text it came from. Rejected or withdrawn, the reviewed
// text comes back and the local one is kept beside it in a copy named as
// conflict copies are (never pushed), headed by the reviewer's comment.

// ProposalReader reads a proposal (client.Client does); a Remote without
// it leaves proposed keys held until the agent restarts.
type ProposalReader interface {
	Proposal(ctx context.Context, id int64) (*api.ProposalDetail, error)
}

// heldProposal is a key kept in an open proposal: which, and the local
// content it holds (deleted: the key's delete).
type heldProposal struct {
	id       int64
	checksum string
	deleted  bool
}

// Awaiting is a local change held in an open proposal.
type Awaiting struct {
	Path     string `json:"path"`
	Proposal int64  `json:"proposal"`
}

// String is the line status and sync print.
func (a Awaiting) String() string {
	return fmt.Sprintf("%s: awaiting review (#%d)", a.Path, a.Proposal)
}

// Rejection is a proposed change a reviewer rejected (or its author
// withdrew): the reviewed text is back at Path, the local one in Copy.
type Rejection struct {
	Path     string `json:"path"`
	Copy     string `json:"copy"`
	Proposal int64  `json:"proposal"`
	State    string `json:"state"`
	By       string `json:"by"`
	Comment  string `json:"comment,omitempty"`
}

// holdProposed records the keys of req that resp's proposal holds and
// returns them.
func (e *Engine) holdProposed(req api.PutRequest, resp *api.PutResponse) map[string]bool {
	if resp.Proposal == nil {
		return nil
	}
	held := map[string]bool{}
	if e.kept.proposed == nil {
		e.kept.proposed = map[string]heldProposal{}
	}
	for _, k := range resp.Proposal.Keys {
		if content, ok := req.Entries[k]; ok {
			e.kept.proposed[k] = heldProposal{id: resp.Proposal.ID, checksum: protocol.EntryChecksum([]byte(content))}
			held[k] = true
		} else if slices.Contains(req.SoftDeleteKeys, k) {
			e.kept.proposed[k] = heldProposal{id: resp.Proposal.ID, deleted: true}
			held[k] = true
		}
	}
	if len(held) > 0 {
		e.view.loaded = false // part of a held index may have landed: read the server again
	}
	return held
}

// heldChange reports whether c is what an open proposal already holds.
func (e *Engine) heldChange(c Change) bool {
	h, ok := e.kept.proposed[c.Key]
	return ok && (c.Delete && h.deleted || !c.Delete && !h.deleted && h.checksum == protocol.EntryChecksum([]byte(c.Content)))
}

// awaiting lists the held keys, in key order.
func (e *Engine) awaiting() []Awaiting {
	var out []Awaiting
	for _, k := range slices.Sorted(maps.Keys(e.kept.proposed)) {
		out = append(out, Awaiting{Path: k, Proposal: e.kept.proposed[k].id})
	}
	return out
}

// holdsAny reports whether any of ids is a proposal holding one of our
// edits (e.kept.proposed).
func (e *Engine) holdsAny(ids []int64) bool {
	for _, h := range e.kept.proposed {
		if slices.Contains(ids, h.id) {
			return true
		}
	}
	return false
}

// checkProposals asks after each open proposal holding keys: approved, its
// keys are released (the server's change merges as any other); rejected or
// withdrawn, each key's local text is kept in a copy and the reviewed text
// written back.
func (e *Engine) checkProposals(ctx context.Context, local map[string]string, r *Report) {
	reader, ok := e.cfg.Remote.(ProposalReader)
	if !ok || len(e.kept.proposed) == 0 {
		return
	}
	ids := map[int64]bool{}
	for _, h := range e.kept.proposed {
		ids[h.id] = true
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		p, err := reader.Proposal(ctx, id)
		if err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("review of proposal #%d: %v", id, err))
			continue
		}
		if p.State == api.ProposalOpen {
			continue
		}
		for k, h := range e.kept.proposed {
			if h.id != id {
				continue
			}
			delete(e.kept.proposed, k)
			if p.State != api.ProposalApproved {
				e.restoreReviewed(k, h, p.Proposal, local[k], r)
			}
		}
	}
}

// restoreReviewed puts the reviewed text of key back after its proposal
// was rejected or withdrawn, keeping the local text (when it is still the
// one proposed) in a copy headed by the decision and comment.
func (e *Engine) restoreReviewed(key string, h heldProposal, p api.Proposal, scanned string, r *Report) {
	rej := Rejection{Path: key, Proposal: p.ID, State: p.State, By: p.DecidedBy, Comment: p.Comment}
	if h.deleted != (scanned == "") || !h.deleted && scanned != h.checksum {
		r.Rejections = append(r.Rejections, rej) // edited since: the new text is the person's, left alone
		return
	}
	if !h.deleted {
		content, err := e.local.content(e.cfg.Dir, key)
		if err == nil {
			rej.Copy, err = writeRejectedCopy(e.cfg.Dir, key, p, content)
		}
		if err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("keep %q beside its reviewed text: %v", key, err))
			return
		}
	}
	if err := e.putBackReviewed(key, scanned, r); err != nil {
		r.Warnings = append(r.Warnings, err.Error())
	}
	r.Rejections = append(r.Rejections, rej)
}

// putBackReviewed writes the server's text of key over the local one
// (scanned), or removes the local file when the server holds none.
func (e *Engine) putBackReviewed(key, scanned string, r *Report) error {
	if _, live := e.view.live[key]; live {
		return e.writeLocal(key, scanned, e.view.content[key], r)
	}
	e.local.changed(key)
	if err := memcore.SafeRemove(e.cfg.Dir, key); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("remove %q, which review kept from the team: %w", key, err)
	}
	e.cfg.Journal.Forget(key)
	return nil
}

// RejectedMarker names a copy of a rejected proposal's text: a conflict
// copy (protocol.ConflictMarker), so it is never pushed nor watched.
const RejectedMarker = protocol.ConflictMarker + "rejected-"

// writeRejectedCopy writes content, headed by the decision, beside key as
// <stem>.conflict-rejected-<id>.md and returns its name.
func writeRejectedCopy(dir, key string, p api.Proposal, content string) (string, error) {
	name := strings.TrimSuffix(key, ".md") + RejectedMarker + strconv.FormatInt(p.ID, 10) + ".md"
	head := fmt.Sprintf("<!-- teammem: proposal #%d was %s by %s", p.ID, p.State, p.DecidedBy)
	if p.Comment != "" {
		head += ": " + strings.ReplaceAll(p.Comment, "--", "- -")
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	err = atomicfile.CreateIn(root, filepath.FromSlash(name), 0o644, atomicfile.Bytes([]byte(head+" -->\n"+content)))
	if os.IsExist(err) {
		return name, nil // kept by an earlier cycle
	}
	return name, err
}

// ProposalLister lists proposals (client.Client does).
type ProposalLister interface {
	Proposals(ctx context.Context, o client.ProposalOptions) (*api.Proposals, error)
}

// openProposals lists the keys of the caller's open proposals of repo,
// nil when the remote cannot tell.
func openProposals(ctx context.Context, remote Remote, repo string) []Awaiting {
	lister, ok := remote.(ProposalLister)
	if !ok {
		return nil
	}
	res, err := lister.Proposals(ctx, client.ProposalOptions{Repo: repo, State: api.ProposalOpen, Mine: true})
	if err != nil {
		return nil
	}
	var out []Awaiting
	for _, p := range res.Proposals {
		for _, k := range p.Keys {
			out = append(out, Awaiting{Path: k, Proposal: p.ID})
		}
	}
	return out
}
