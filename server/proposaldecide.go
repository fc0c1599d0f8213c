package server

import (
	"context"
	"errors"
	"fmt"
)

// Decision is what a reviewer or an author does with an open proposal.
type Decision string

// Decisions.
const (
	DecideApprove  Decision = "approve"
	DecideReject   Decision = "reject"
	DecideWithdraw Decision = "withdraw"
)

// ParseDecision parses "approve", "reject" or "withdraw".
func ParseDecision(s string) (Decision, error) {
	switch d := Decision(s); d {
	case DecideApprove, DecideReject, DecideWithdraw:
		return d, nil
	}
	return "", invalidf(ReasonInvalidParameter, "decision %.40q is not one of approve, reject, withdraw", s)
}

// maxApplyTries bounds how often an approval is merged again when the
// repository moves between its read and its write.
const maxApplyTries = 5

// Decide approves, rejects or withdraws an open proposal. Approving and
// rejecting take a reviewer of the repository (canReview); withdrawing
// takes its author. An approval applies the proposal as one write whose
// author and provenance are the proposal's, naming the reviewer
// (Provenance.ApprovedBy); a key that moved since merges as the agent
// merges, or the approval is refused naming the keys that do not
// (*MergeConflictError) and the proposal stays open. A rejection needs a
// comment. Errors: ErrNotFound (no such proposal, or of a repository p
// cannot read), ErrForbidden, a decided proposal (*ProposalStateError),
// *MergeConflictError, ErrInvalid (comment), the store's write errors.
func (s *Service) Decide(ctx context.Context, p Principal, id int64, d Decision, comment string, prov Provenance) (Proposal, error) {
	if err := checkComment(comment); err != nil {
		return Proposal{}, err
	}
	prop, err := s.readableProposal(ctx, p, id)
	if err != nil {
		return Proposal{}, err
	}
	if err := checkDecider(p, prop, d, comment); err != nil {
		return Proposal{}, err
	}
	if prop.State != ProposalOpen {
		return Proposal{}, &ProposalStateError{ID: id, State: prop.State}
	}
	to := map[Decision]ProposalState{DecideApprove: ProposalApproved, DecideReject: ProposalRejected, DecideWithdraw: ProposalWithdrawn}[d]
	dec := ProposalDecision{ID: id, From: ProposalOpen, To: to, By: p.Subject, At: s.cfg.Now().UTC(), Comment: comment}
	by := prov.stamp(p)
	ctx = WithAuditActor(ctx, ActorOf(by))
	if d == DecideApprove {
		prop, err = s.approve(ctx, prop, dec)
	} else {
		prop, err = s.cfg.Review.DecideProposal(ctx, dec)
	}
	if err != nil {
		return Proposal{}, err
	}
	s.publishProposal(ctx, prop)
	s.recordReview(ctx, ReviewAct{Action: string(d), Repo: prop.Repo, By: by, Proposal: prop, At: dec.At})
	return prop, nil
}

// checkDecider refuses a decision p may not make.
func checkDecider(p Principal, prop Proposal, d Decision, comment string) error {
	switch {
	case d == DecideWithdraw && p.Subject != prop.Author:
		return &ForbiddenError{Subject: p.Subject, Repo: prop.Repo, Need: PermAdmin, Why: "only its author withdraws a proposal"}
	case d != DecideWithdraw && !canReview(p, prop.Repo):
		return &ForbiddenError{Subject: p.Subject, Repo: prop.Repo, Need: PermAdmin, Why: "a reviewer (admin) decides a proposal"}
	case d == DecideReject && comment == "":
		return invalidf(ReasonInvalidBody, "a rejection needs a comment telling the author why")
	}
	return nil
}

// approve claims the proposal (open → approved, so that a concurrent
// decision or a replay finds it decided), writes it, and records the
// version written; a write that fails puts the proposal back to open.
func (s *Service) approve(ctx context.Context, prop Proposal, dec ProposalDecision) (Proposal, error) {
	rs := s.cfg.Review
	if _, err := rs.DecideProposal(ctx, dec); err != nil {
		return Proposal{}, err
	}
	res, err := s.applyApproval(ctx, prop, dec)
	if err != nil {
		back := ProposalDecision{ID: prop.ID, From: ProposalApproved, To: ProposalOpen}
		if _, rerr := rs.DecideProposal(context.WithoutCancel(ctx), back); rerr != nil {
			err = errors.Join(err, fmt.Errorf("reopen proposal #%d: %w", prop.ID, rerr))
		}
		return Proposal{}, err
	}
	dec.From, dec.AppliedVersion = ProposalApproved, 0
	if len(res.Changed)+len(res.Deleted) > 0 {
		dec.AppliedVersion = res.State.Version
	}
	return rs.DecideProposal(ctx, dec)
}

// applyApproval writes an approved proposal over the current state,
// merging keys that moved, conditionally on that state (read again and
// merged again when another write slipped in).
func (s *Service) applyApproval(ctx context.Context, prop Proposal, dec ProposalDecision) (WriteResult, error) {
	prov := prop.Provenance
	prov.ApprovedBy, prov.Proposal = dec.By, prop.ID
	for try := 0; ; try++ {
		st, err := s.store.RepoState(ctx, prop.Repo)
		if isNotFound(err) {
			st, err = RepoState{Repo: prop.Repo, Checksum: emptyChecksum()}, nil
		}
		if err != nil {
			return WriteResult{}, err
		}
		w := Write{Repo: prop.Repo, Author: prop.Author, Provenance: prov, At: dec.At,
			MaxEntries: s.cfg.MaxEntries, MaxRepoBytes: s.cfg.MaxRepoBytes, AllOrNothing: true}
		if st.Version > 0 {
			w.IfMatch = TagList(st.Checksum)
		} else {
			w.IfNoneMatch = AnyTag()
		}
		if err := s.mergeInto(ctx, prop, &w); err != nil {
			return WriteResult{}, err
		}
		res, err := s.store.Apply(ctx, w)
		if errors.Is(err, ErrPreconditionFailed) && try < maxApplyTries {
			continue
		}
		if err != nil {
			return WriteResult{}, err
		}
		if len(res.Skipped) > 0 {
			keys := make([]string, len(res.Skipped))
			for i, sk := range res.Skipped {
				keys[i] = sk.Key
			}
			return WriteResult{}, &MergeConflictError{ID: prop.ID, Keys: keys}
		}
		if len(res.Changed)+len(res.Deleted) > 0 {
			s.cfg.Events.Publish(context.WithoutCancel(ctx), EventOf(w, res))
		}
		return res, nil
	}
}

// mergeInto fills w with what approving prop writes over the current text
// of its keys.
func (s *Service) mergeInto(ctx context.Context, prop Proposal, w *Write) error {
	var conflicts []string
	for _, c := range prop.Changes {
		cur, err := s.currentText(ctx, prop.Repo, c.Key)
		if err != nil {
			return err
		}
		switch t, text := mergeChange(c, cur); t {
		case targetPut:
			w.Puts = append(w.Puts, Put{Key: c.Key, Content: text, Checksum: entryChecksum(text)})
		case targetDelete:
			w.Deletes = append(w.Deletes, c.Key)
		case targetConflict:
			conflicts = append(conflicts, c.Key)
		}
	}
	if len(conflicts) > 0 {
		return &MergeConflictError{ID: prop.ID, Keys: conflicts}
	}
	return nil
}
