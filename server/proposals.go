package server

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxCommentBytes bounds a reviewer's comment.
const MaxCommentBytes = 4000

// MaxProposalsPage bounds a page of proposals.
const MaxProposalsPage = 500

// ReviewAct is one review decision or policy change, as Config.OnReview
// is told it: Action is "policy", "approve", "reject" or "withdraw".
type ReviewAct struct {
	Action   string
	Repo     string
	By       Provenance // who acted, through what
	Policy   ReviewPolicy
	Proposal Proposal // as it stands after the act (policy changes: zero)
	At       time.Time
}

// recordReview tells Config.OnReview of an act, once it is done (the
// store has already appended its audit record in the act's transaction).
func (s *Service) recordReview(ctx context.Context, act ReviewAct) {
	if s.cfg.OnReview != nil {
		s.cfg.OnReview(context.WithoutCancel(ctx), act)
	}
}

// KeepsProposals reports whether the Service has a ReviewStore to keep
// proposals in.
func (s *Service) KeepsProposals() bool { return s.cfg.Review != nil }

// reviewStore returns the ReviewStore, or ErrUnavailable without one.
func (s *Service) reviewStore() (ReviewStore, error) {
	if s.cfg.Review == nil {
		return nil, fmt.Errorf("this store keeps no proposals: %w", ErrUnavailable)
	}
	return s.cfg.Review, nil
}

// ReviewPolicy returns repo's review policy. Errors: invalid repo,
// ErrForbidden (read needed), the store's.
func (s *Service) ReviewPolicy(ctx context.Context, p Principal, repo string) (string, ReviewPolicy, error) {
	canon, err := s.authorize(p, repo, PermRead)
	if err != nil {
		return "", "", err
	}
	pol, err := s.policy(ctx, canon)
	return canon, pol, err
}

// SetReviewPolicy sets repo's review policy; its admins alone may.
// Errors: invalid repo, ErrForbidden, a personal repository or a
// propose-only token (ErrInvalid, ErrForbidden), ErrUnavailable without a
// ReviewStore, the store's.
func (s *Service) SetReviewPolicy(ctx context.Context, p Principal, repo string, pol ReviewPolicy, prov Provenance) (string, error) {
	canon, err := s.authorize(p, repo, PermAdmin)
	if err != nil {
		return "", err
	}
	if IsPersonal(canon) {
		return "", invalidf(ReasonInvalidRepo, "a personal repository is written by its owner alone and has no review")
	}
	if p.ProposeOnly {
		return "", &ForbiddenError{Subject: p.Subject, Repo: canon, Need: PermAdmin}
	}
	if _, err := ParseReviewPolicy(string(pol)); err != nil {
		return "", err
	}
	rs, err := s.reviewStore()
	if err != nil {
		return "", err
	}
	at := s.cfg.Now().UTC()
	by := prov.stamp(p)
	if err := rs.SetReviewPolicy(WithAuditActor(ctx, ActorOf(by)), canon, pol, at); err != nil {
		return "", err
	}
	s.guesses.put(canon, pol)
	s.recordReview(ctx, ReviewAct{Action: "policy", Repo: canon, By: by, Policy: pol, At: at})
	return canon, nil
}

// ChangeSet is a set of changes proposed together (Service.Propose): each
// key's new content, or nil to delete it.
type ChangeSet struct {
	Changes map[string]*string
	// BaseVersion is the version the changes were made against (0: the
	// current one).
	BaseVersion int64
	// Provenance holds what the caller says of the write (Surface,
	// Client, Machine, Commit); the subject is the principal's.
	Provenance Provenance
	// Amend folds the changes into the caller's open proposal of the
	// repository, when there is one (see ProposalDraft.Amend).
	Amend bool
	// Notes says, by key, why a change is proposed (optional): kept with
	// the change (ProposedChange.Note) and shown with it.
	Notes map[string]string
}

// MaxNoteBytes bounds a proposed change's note.
const MaxNoteBytes = 300

// checkNotes refuses a note of a key the change set does not change, or
// one too long or holding a control, format or bidirectional character.
func (cs ChangeSet) checkNotes() error {
	for k, n := range cs.Notes {
		if _, ok := cs.Changes[k]; !ok {
			return invalidf(ReasonInvalidBody, "a note for %.200q, which the change set does not change", k)
		}
		if len(n) > MaxNoteBytes || !displayable(n) {
			return invalidf(ReasonInvalidBody, "the note of %.200q is over %d bytes or holds a control character", k, MaxNoteBytes)
		}
	}
	return nil
}

// Propose makes a proposal of cs in repo by p, whatever the repository's
// policy: the way a tool proposes a change set for review. Each key and
// content is checked as a push's is, and any that would be left out
// refuses the whole set (ErrInvalid naming it); a change equal to the
// key's current text is dropped. Without cs.Amend the change set is
// proposed whole (ProposalDraft.Whole): the author's pushes never amend
// it, and while it is open the same change set over the same version is
// answered that proposal, not a second one. Errors: invalid repo, ErrForbidden (write
// needed), ErrInvalid (a bad entry, nothing left to propose),
// ErrUnavailable without a ReviewStore, the store's.
func (s *Service) Propose(ctx context.Context, p Principal, repo string, cs ChangeSet) (Proposal, error) {
	canon, err := s.authorize(p, repo, PermWrite)
	if err != nil {
		return Proposal{}, err
	}
	if err := cs.Provenance.check(); err != nil {
		return Proposal{}, err
	}
	if err := cs.checkNotes(); err != nil {
		return Proposal{}, err
	}
	changes, err := s.checkChangeSet(ctx, canon, cs)
	if err != nil {
		return Proposal{}, err
	}
	base := cs.BaseVersion
	if base == 0 {
		if st, err := s.store.RepoState(ctx, canon); err == nil {
			base = st.Version
		}
	}
	return s.saveProposal(ctx, ProposalDraft{Repo: canon, BaseVersion: base, Changes: changes,
		Provenance: cs.Provenance.stamp(p), At: s.cfg.Now().UTC(), Amend: cs.Amend, Whole: !cs.Amend})
}

// checkChangeSet checks a change set's entries and reads the text each
// replaces.
func (s *Service) checkChangeSet(ctx context.Context, repo string, cs ChangeSet) ([]ProposedChange, error) {
	in := PutInput{Entries: map[string]string{}}
	for k, c := range cs.Changes {
		if c == nil {
			in.Deletes = append(in.Deletes, k)
		} else {
			in.Entries[k] = *c
		}
	}
	if err := s.cfg.CheckEntryCount(len(cs.Changes)); err != nil {
		return nil, err
	}
	puts, skipped := s.checkPuts(in)
	deletes, skippedDeletes := checkDeletes(in.Deletes)
	if sk := append(skipped, skippedDeletes...); len(sk) > 0 {
		return nil, invalidf(ReasonInvalidKey, "%s", sk[0].Message)
	}
	var changes []ProposedChange
	for _, put := range puts {
		cur, err := s.currentText(ctx, repo, put.Key)
		if err != nil {
			return nil, err
		}
		if cur.absent || cur.text != put.Content {
			changes = append(changes, ProposedChange{Key: put.Key, Content: put.Content, Checksum: put.Checksum, Base: cur.text,
				BaseAbsent: cur.absent, Note: cs.Notes[put.Key]})
		}
	}
	for _, k := range deletes {
		cur, err := s.currentText(ctx, repo, k)
		if err != nil {
			return nil, err
		}
		if !cur.absent {
			changes = append(changes, ProposedChange{Key: k, Delete: true, Checksum: entryChecksum(cur.text), Base: cur.text, Note: cs.Notes[k]})
		}
	}
	if len(changes) == 0 {
		return nil, invalidf(ReasonInvalidBody, "nothing to propose: every change equals the current text")
	}
	sortChanges(changes)
	return changes, nil
}

// saveProposal stores a draft and tells the repository's reviewers.
func (s *Service) saveProposal(ctx context.Context, d ProposalDraft) (Proposal, error) {
	rs, err := s.reviewStore()
	if err != nil {
		return Proposal{}, err
	}
	prop, changed, err := rs.SaveProposal(ctx, d)
	if err != nil {
		return Proposal{}, err
	}
	if changed {
		s.publishProposal(ctx, prop)
	}
	return prop, nil
}

// publishProposal tells the repository's stream of a proposal made,
// amended or decided. Proposals are not versions: the stream carries them
// beside the changes, never in their place.
func (s *Service) publishProposal(ctx context.Context, prop Proposal) {
	if pub, ok := s.cfg.Events.(ProposalEvents); ok {
		pub.PublishProposal(context.WithoutCancel(ctx), prop)
	}
}

// ProposalEvents is implemented by an Events that also carries proposal
// events to the repository's subscribers.
type ProposalEvents interface {
	PublishProposal(ctx context.Context, prop Proposal)
}

// checkComment refuses a comment that is too long or not text.
func checkComment(c string) error {
	if len(c) > MaxCommentBytes {
		return invalidf(ReasonInvalidBody, "the comment is %d bytes; at most %d are kept", len(c), MaxCommentBytes)
	}
	if !utf8.ValidString(c) || strings.IndexByte(c, 0) >= 0 {
		return invalidf(ReasonInvalidBody, "the comment is not UTF-8 text")
	}
	return nil
}
