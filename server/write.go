package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/secrets"
)

// PutInput is one push: entries to upsert and keys to soft-delete.
type PutInput struct {
	Entries map[string]string
	Deletes []string
	// BadContent holds keys of Entries whose content arrived as something
	// that is not UTF-8 text (for example a JSON string with a lone
	// surrogate escape); they are skipped as ReasonInvalidContent.
	BadContent map[string]bool
	// IfMatch is none for an unconditional write, else the checksums (or
	// "*") the repository must currently have one of.
	IfMatch Tags
	// IfNoneMatch is none, "*" (the push applies only while the repository
	// has never held data) or checksums the repository must not have (see
	// CheckIfNoneMatch).
	IfNoneMatch Tags
	// Provenance holds what the request says of the write: its Surface
	// (none: SurfaceAgent), Client, Machine and Commit. Put sets its
	// Subject, DisplayName and Credential from the verified principal,
	// whatever they hold here.
	Provenance Provenance
	// AllOrNothing writes nothing when an entry or soft-delete key would be
	// left out: WriteResult then lists them in Skipped, with the current
	// state and nothing changed.
	AllOrNothing bool
}

// Put validates and applies one push atomically. An entry with an invalid
// key or content, over the entry limit, holding a credential (in its
// content or its key: the skip then names the key redacted), or whose new
// key collides after case folding is left out and listed in
// WriteResult.Skipped (protocol §4 "Per-entry refusals"), as is a
// soft-delete key that fails ValidateKey; the rest applies. Errors: invalid
// repo, or a key both upserted and deleted (ErrInvalid), ErrForbidden, and
// ErrTooManyEntries when Entries alone names more keys than the entry limit
// (before any entry is checked), a Provenance claim of a shape that is not
// kept (ErrInvalid, ReasonInvalidHeader), and the Store's ErrPreconditionFailed,
// ErrTooManyEntries, ErrRepoTooLarge.
// Under a review policy (see splitForReview) what may land lands and the
// rest becomes, or amends, the author's open proposal: WriteResult.Proposal.
// Nothing is written on an error, nor, with in.AllOrNothing, when an entry
// is left out. A write that changed something is
// published to the events hub once committed.
func (s *Service) Put(ctx context.Context, p Principal, repo string, in PutInput) (WriteResult, error) {
	canon, err := s.authorize(p, repo, PermWrite)
	if err != nil {
		return WriteResult{}, err
	}
	if err := s.cfg.CheckEntryCount(len(in.Entries)); err != nil {
		return WriteResult{}, err
	}
	if err := checkPutAndDelete(in); err != nil {
		return WriteResult{}, err
	}
	if err := in.Provenance.check(); err != nil {
		return WriteResult{}, err
	}
	puts, skipped := s.checkPuts(in)
	deletes, skippedDeletes := checkDeletes(in.Deletes)
	if in.AllOrNothing && len(skipped)+len(skippedDeletes) > 0 {
		return s.refuseAll(ctx, canon, in, slices.Concat(skipped, skippedDeletes))
	}
	split, w, res, err := s.applyCut(ctx, p, canon, in, puts, deletes)
	if err != nil {
		return WriteResult{}, err
	}
	if len(res.Changed)+len(res.Deleted) > 0 {
		s.cfg.Events.Publish(context.WithoutCancel(ctx), EventOf(w, res))
	}
	if len(split.proposed) > 0 {
		prop, err := s.saveProposal(ctx, ProposalDraft{Repo: canon, BaseVersion: res.State.Version, Changes: split.proposed,
			Provenance: w.Provenance, At: w.At, Amend: true})
		if err != nil {
			return WriteResult{}, err
		}
		res.Proposal = &prop
	}
	res.Skipped = slices.Concat(skipped, skippedDeletes, res.Skipped)
	slices.SortStableFunc(res.Skipped, func(a, b Skipped) int { return strings.Compare(a.Key, b.Key) })
	return res, nil
}

// maxPolicyCuts bounds how many times Put cuts one push by its
// repository's review policy: each cut after the first follows a policy
// change the store found, so more than a few mean one set after another.
const maxPolicyCuts = 4

// applyCut cuts a checked push by repo's review policy (splitForReview)
// and applies what lands; when the store finds that the policy changed
// since (a *PolicyChangedError: set meanwhile, or through another
// process), nothing was applied and the push is cut again by the policy
// the store found.
func (s *Service) applyCut(ctx context.Context, p Principal, repo string, in PutInput, puts []Put, deletes []string) (reviewSplit, Write, WriteResult, error) {
	for cut := 1; ; cut++ {
		split, err := s.splitForReview(ctx, p, repo, puts, deletes)
		if err != nil {
			return split, Write{}, WriteResult{}, err
		}
		w := Write{
			Repo:         repo,
			IfMatch:      in.IfMatch,
			IfNoneMatch:  in.IfNoneMatch,
			Puts:         split.puts,
			Deletes:      split.deletes,
			Author:       p.Subject,
			Provenance:   in.Provenance.stamp(p),
			At:           s.cfg.Now().UTC(),
			MaxEntries:   s.cfg.MaxEntries,
			MaxRepoBytes: s.cfg.MaxRepoBytes,
			AllOrNothing: in.AllOrNothing,
			Policy:       split.policy,
		}
		res, err := s.store.Apply(ctx, w)
		var changed *PolicyChangedError
		if !errors.As(err, &changed) {
			return split, w, res, err
		}
		s.guesses.put(repo, changed.Policy)
		if cut == maxPolicyCuts {
			return split, w, WriteResult{}, fmt.Errorf("write to %s: its review policy changed %d times during the write: %w", repo, cut, ErrUnavailable)
		}
	}
}

// refuseAll answers an all-or-nothing push with entries left out by the
// checks: nothing is written, and the result is the repository's current
// state and what was left out. A failed precondition is still
// ErrPreconditionFailed.
func (s *Service) refuseAll(ctx context.Context, canon string, in PutInput, skipped []Skipped) (WriteResult, error) {
	st, err := s.store.RepoState(ctx, canon)
	if errors.Is(err, ErrNotFound) {
		st, err = RepoState{Repo: canon}, nil
	}
	if err != nil {
		return WriteResult{}, err
	}
	if err := (Preconditions{IfMatch: in.IfMatch, IfNoneMatch: in.IfNoneMatch}).Check(st); err != nil {
		return WriteResult{}, err
	}
	slices.SortStableFunc(skipped, func(a, b Skipped) int { return strings.Compare(a.Key, b.Key) })
	return WriteResult{State: st, Changed: []string{}, Deleted: []string{}, Skipped: skipped}, nil
}

// checkPutAndDelete refuses a key both upserted and soft-deleted: the
// request contradicts itself, so no part of it can be applied.
func checkPutAndDelete(in PutInput) error {
	for _, k := range in.Deletes {
		if _, both := in.Entries[k]; both {
			shown := truncateForMessage(secrets.Redact(k))
			e := invalidf(ReasonPutAndDelete, "key %q is both upserted and soft-deleted in one request", shown)
			e.Details = map[string]any{"key": shown}
			return e
		}
	}
	return nil
}

// checkPuts checks every entry in key order and returns the puts that pass,
// sorted with their checksums, and the entries it left out: an invalid key
// or content, over the entry limit, holding a credential, or folding like a
// key of the same push that passed before it.
func (s *Service) checkPuts(in PutInput) ([]Put, []Skipped) {
	keys := sortedKeys(in.Entries)
	folded := make(map[string]string, len(keys))
	puts := make([]Put, 0, len(keys))
	var skipped []Skipped
	for _, k := range keys {
		content := in.Entries[k]
		sk := s.checkEntry(k, content, in.BadContent[k])
		if sk == nil {
			f := protocol.FoldKey(k)
			if other := folded[f]; other != "" {
				sk = &Skipped{Key: k, Reason: ReasonKeyCollision, Existing: other,
					Message: fmt.Sprintf("%q differs from %q only in case; macOS and Windows would store both as one file, so rename one", k, other)}
			} else {
				folded[f] = k
			}
		}
		if sk != nil {
			skipped = append(skipped, *sk)
			continue
		}
		puts = append(puts, Put{Key: k, Content: content, Checksum: protocol.EntryChecksum([]byte(content))})
	}
	return puts, skipped
}

// checkEntry returns why one entry must be left out, or nil.
func (s *Service) checkEntry(k, content string, badContent bool) *Skipped {
	if sk := s.checkKeySecret(k); sk != nil {
		return sk
	}
	if err := protocol.ValidateKey(k); err != nil {
		return &Skipped{Key: secrets.Redact(k), Reason: ReasonInvalidKey, Message: keyMessage(err)}
	}
	if badContent || !utf8.ValidString(content) || strings.IndexByte(content, 0) >= 0 {
		return &Skipped{Key: k, Reason: ReasonInvalidContent,
			Message: fmt.Sprintf("%q is not valid UTF-8 text (or holds a NUL character); save it as UTF-8 text", k)}
	}
	if len(content) > s.cfg.MaxEntryBytes {
		return &Skipped{Key: k, Reason: ReasonEntryTooLarge,
			Message: fmt.Sprintf("%q is %d bytes; the limit is %d bytes, so split or shorten it", k, len(content), s.cfg.MaxEntryBytes)}
	}
	if s.cfg.SecretScan {
		if m := secrets.Scan(content); len(m) > 0 {
			return &Skipped{Key: k, Reason: ReasonSecretDetected, RuleID: m[0].RuleID, Label: m[0].Label,
				Message: fmt.Sprintf("%q contains what looks like a credential (%s, line %d); remove it and save again", k, m[0].Label, m[0].Line)}
		}
	}
	return nil
}

// checkKeySecret refuses a key in which the secret scanner finds a
// credential, as content holding one is refused: a key is stored, logged,
// shown and made a file name on every teammate's disk. The refusal names
// the key redacted (secrets.Redact), never as sent, so that no answer, log
// line or metric carries the credential.
func (s *Service) checkKeySecret(k string) *Skipped {
	if !s.cfg.SecretScan {
		return nil
	}
	m := secrets.Scan(k)
	if len(m) == 0 {
		return nil
	}
	shown := secrets.Redact(k)
	return &Skipped{Key: shown, Reason: ReasonSecretDetected, RuleID: m[0].RuleID, Label: m[0].Label,
		Message: fmt.Sprintf("the file name %q contains what looks like a credential (%s); rename the file without it and save again", truncateForMessage(shown), m[0].Label)}
}

// Of reports whether s is the refusal of key, which a refusal names with
// any credential in it redacted.
func (s Skipped) Of(key string) bool { return s.Key == key || s.Key == secrets.Redact(key) }

// checkDeletes returns the valid soft-delete keys, sorted and without
// duplicates, and the invalid ones as skipped.
func checkDeletes(keys []string) ([]string, []Skipped) {
	seen := make(map[string]bool, len(keys))
	out := make([]string, 0, len(keys))
	var skipped []Skipped
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		if err := protocol.ValidateKey(k); err != nil {
			skipped = append(skipped, Skipped{Key: secrets.Redact(k), Reason: ReasonInvalidKey, Message: keyMessage(err)})
			continue
		}
		out = append(out, k)
	}
	sort.Strings(out)
	return out, skipped
}

// keyMessage turns a ValidateKey error into a sentence naming the rule and
// how to fix it; the key itself is redacted, bounded, and quoted so that
// control characters never reach a log or a terminal raw.
func keyMessage(err error) string {
	var ke *protocol.KeyError
	if errors.As(err, &ke) {
		return fmt.Sprintf("%q is not a valid memory file name (%s); rename it", truncateForMessage(secrets.Redact(ke.Key)), ke.Reason)
	}
	return err.Error()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
