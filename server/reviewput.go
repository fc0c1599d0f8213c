package server

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
)

// reviewSplit is a push cut by its repository's review policy: what lands
// at once and what becomes a proposal.
type reviewSplit struct {
	puts     []Put
	deletes  []string
	proposed []ProposedChange
	base     int64        // the version the proposed changes were cut against
	policy   ReviewPolicy // the policy the cut depends on (Write.Policy); empty when none
}

// mustPropose reports whether p's writes to repo under policy wait for a
// reviewer whatever they change (policy all, or a propose-only token), and
// whether any of them may (any policy but off). A reviewer's writes land
// unless its token is propose-only.
func mustPropose(p Principal, repo string, policy ReviewPolicy) (all, some bool) {
	if p.ProposeOnly {
		return true, true
	}
	if policy == ReviewOff || p.Can(repo, PermAdmin) {
		return false, false
	}
	return policy == ReviewAll, true
}

// policy returns repo's review policy as committed; off without a
// ReviewStore and for a personal repository (its owner alone writes it).
func (s *Service) policy(ctx context.Context, repo string) (ReviewPolicy, error) {
	if s.cfg.Review == nil || IsPersonal(repo) {
		return ReviewOff, nil
	}
	pol, err := s.cfg.Review.ReviewPolicy(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("read review policy of %s: %w", repo, err)
	}
	return pol, nil
}

// writePolicy returns the review policy p's push to repo is cut by, and
// whether the cut depends on it: not without a ReviewStore, on a personal
// repository, for a propose-only token (it proposes everything) nor for
// an admin of repo (its writes land); pol is then off. The policy is this
// process's guess (see policyGuesses), which the store checks in the
// write's transaction (Write.Policy): no query of its own on a write.
func (s *Service) writePolicy(ctx context.Context, p Principal, repo string) (pol ReviewPolicy, depends bool, err error) {
	if s.cfg.Review == nil || IsPersonal(repo) || p.ProposeOnly || p.Can(repo, PermAdmin) {
		return ReviewOff, false, nil
	}
	pol, err = s.guesses.get(ctx, repo, s.policy)
	return pol, err == nil, err
}

// splitForReview cuts a checked push of p by repo's policy. Under
// "changes" a put of a new key lands, as do the lines a put adds to a live
// index (the index's removed lines are proposed); an edit of a live key
// and the delete of one are proposed. Under "all", or for a propose-only
// token, every change is proposed. A delete of an absent key is dropped.
// The split names the policy it was cut by when it depends on one: the
// write carries it (Write.Policy), and Put cuts again when the store
// finds another.
func (s *Service) splitForReview(ctx context.Context, p Principal, repo string, puts []Put, deletes []string) (reviewSplit, error) {
	split := reviewSplit{puts: puts, deletes: deletes}
	if p.ProposeOnly && s.cfg.Review == nil {
		return split, fmt.Errorf("a propose-only token writes through review, which this store does not keep: %w", ErrUnavailable)
	}
	pol, depends, err := s.writePolicy(ctx, p, repo)
	if err != nil {
		return split, err
	}
	if depends {
		split.policy = pol
	}
	all, some := mustPropose(p, repo, pol)
	if !some || len(puts)+len(deletes) == 0 {
		return split, nil
	}
	split.puts, split.deletes = nil, nil
	st, err := s.store.RepoState(ctx, repo)
	if err != nil && !isNotFound(err) {
		return split, err
	}
	split.base = st.Version
	for _, put := range puts {
		if err := s.splitPut(ctx, repo, put, all, &split); err != nil {
			return split, err
		}
	}
	for _, k := range deletes {
		cur, err := s.currentText(ctx, repo, k)
		if err != nil {
			return split, err
		}
		if !cur.absent {
			split.proposed = append(split.proposed, ProposedChange{Key: k, Delete: true, Checksum: entryChecksum(cur.text), Base: cur.text})
		}
	}
	sortChanges(split.proposed)
	return split, nil
}

// splitPut places one put of a push under review.
func (s *Service) splitPut(ctx context.Context, repo string, put Put, all bool, split *reviewSplit) error {
	cur, err := s.currentText(ctx, repo, put.Key)
	if err != nil {
		return err
	}
	if !cur.absent && cur.text == put.Content {
		return nil // no change
	}
	change := ProposedChange{Key: put.Key, Content: put.Content, Checksum: put.Checksum, Base: cur.text, BaseAbsent: cur.absent}
	switch {
	case all:
	case cur.absent:
		split.puts = append(split.puts, put)
		return nil
	case isIndexKey(put.Key):
		union, removes := indexUnion(cur.text, put.Content)
		if union != cur.text {
			split.puts = append(split.puts, Put{Key: put.Key, Content: union, Checksum: entryChecksum(union)})
		}
		if !removes {
			return nil
		}
		change.Base = union
	}
	split.proposed = append(split.proposed, change)
	return nil
}

func entryChecksum(s string) string { return protocol.EntryChecksum([]byte(s)) }

func emptyChecksum() string { return protocol.EmptyDatasetChecksum }

// sortChanges sorts changes by key.
func sortChanges(cs []ProposedChange) {
	slices.SortFunc(cs, func(a, b ProposedChange) int { return strings.Compare(a.Key, b.Key) })
}
