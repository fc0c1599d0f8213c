package server

import (
	"context"
	"fmt"
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
	// IfMatch is "" for an unconditional write, else the checksum (or "*")
	// the repository must currently have.
	IfMatch string
	// IfNoneMatch is "" (none) or "*": the push applies only while the
	// repository has never held data (see CheckIfNoneMatch).
	IfNoneMatch string
}

// Put validates and applies one push atomically. Errors: invalid repo, key
// or content (ErrInvalid), ErrForbidden, ErrEntryTooLarge,
// ErrSecretDetected, and the Store's ErrPreconditionFailed,
// ErrTooManyEntries, ErrRepoTooLarge, ErrKeyCollision. Nothing is written
// unless the whole push is valid. A write that changed something is
// published to the events hub once committed.
func (s *Service) Put(ctx context.Context, p Principal, repo string, in PutInput) (WriteResult, error) {
	canon, err := s.authorize(p, repo, PermWrite)
	if err != nil {
		return WriteResult{}, err
	}
	puts, err := s.checkPuts(in.Entries)
	if err != nil {
		return WriteResult{}, err
	}
	deletes, err := checkDeletes(in.Deletes, in.Entries)
	if err != nil {
		return WriteResult{}, err
	}
	w := Write{
		Repo:         canon,
		IfMatch:      in.IfMatch,
		IfNoneMatch:  in.IfNoneMatch,
		Puts:         puts,
		Deletes:      deletes,
		Author:       p.Subject,
		At:           s.cfg.Now().UTC(),
		MaxEntries:   s.cfg.MaxEntries,
		MaxRepoBytes: s.cfg.MaxRepoBytes,
	}
	res, err := s.store.Apply(ctx, w)
	if err == nil && len(res.Changed)+len(res.Deleted) > 0 {
		s.cfg.Events.Publish(context.WithoutCancel(ctx), EventOf(w, res))
	}
	return res, err
}

// checkPuts validates every entry in key order, so the error reported for a
// request with several problems is deterministic, and returns the puts
// sorted with their checksums.
func (s *Service) checkPuts(entries map[string]string) ([]Put, error) {
	keys := sortedKeys(entries)
	folded := make(map[string]string, len(keys))
	puts := make([]Put, 0, len(keys))
	for _, k := range keys {
		content := entries[k]
		if err := validateKey(k); err != nil {
			return nil, err
		}
		f := protocol.FoldKey(k)
		if other := folded[f]; other != "" {
			return nil, &KeyCollisionError{Key: k, Existing: other}
		}
		folded[f] = k
		if !utf8.ValidString(content) || strings.IndexByte(content, 0) >= 0 {
			return nil, InvalidContent(k)
		}
		if len(content) > s.cfg.MaxEntryBytes {
			return nil, &RequestError{Kind: ErrEntryTooLarge, Reason: ReasonEntryTooLarge,
				Message: fmt.Sprintf("entry %q is %d bytes; the limit is %d bytes", k, len(content), s.cfg.MaxEntryBytes),
				Details: map[string]any{"key": k, "size": len(content), "max_entry_bytes": s.cfg.MaxEntryBytes}}
		}
		if s.cfg.SecretScan {
			if m := secrets.Scan(content); len(m) > 0 {
				return nil, &RequestError{Kind: ErrSecretDetected, Reason: ReasonSecretDetected,
					Message: fmt.Sprintf("entry %q contains what looks like a credential (%s, line %d); remove it and push again", k, m[0].Label, m[0].Line),
					Details: map[string]any{"key": k, "rule_id": m[0].RuleID, "label": m[0].Label, "line": m[0].Line}}
			}
		}
		puts = append(puts, Put{Key: k, Content: content, Checksum: protocol.EntryChecksum([]byte(content))})
	}
	return puts, nil
}

// checkDeletes validates soft-delete keys, drops duplicates and refuses a
// key that is also upserted.
func checkDeletes(keys []string, entries map[string]string) ([]string, error) {
	seen := make(map[string]bool, len(keys))
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if err := validateKey(k); err != nil {
			return nil, err
		}
		if _, both := entries[k]; both {
			e := invalidf(ReasonPutAndDelete, "key %q is both upserted and soft-deleted in one request", k)
			e.Details = map[string]any{"key": k}
			return nil, e
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
