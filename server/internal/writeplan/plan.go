package writeplan

import (
	"fmt"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// Change is one row a write stores: a put of new content, or a delete that
// records the checksum and size of the content it removed.
type Change struct {
	Op       server.Op
	Key      string
	Content  string // empty for a delete
	Checksum string
	Size     int64
}

// Plan is what one Write changes and the repository state it produces.
type Plan struct {
	Repo       string
	Author     string
	Provenance server.Provenance // of the version: the same for every change
	At         time.Time         // UTC, truncated to microseconds
	Version    int64             // the new version
	Checksum   string            // the new dataset checksum
	Entries    int               // live entries after the write
	Bytes      int64             // live bytes after the write
	Changes    []Change          // puts first, then deletes, each sorted by key
	Changed    []string          // keys created or modified
	Deleted    []string          // keys tombstoned
	Skipped    []server.Skipped  // puts left out: their key collides (sorted by key)
}

// State returns the repository state after the plan.
func (p *Plan) State() server.RepoState {
	return server.RepoState{Repo: p.Repo, Version: p.Version, Checksum: p.Checksum,
		Entries: p.Entries, Bytes: p.Bytes, UpdatedAt: p.At}
}

// plan checks w against the current state and the live set and returns
// what it would change, without changing s.
func (s *Set) plan(cur server.RepoState, w server.Write) (*Plan, error) {
	if err := (server.Preconditions{IfMatch: w.IfMatch, IfNoneMatch: w.IfNoneMatch}).Check(cur); err != nil {
		return nil, err
	}
	p := &Plan{Repo: w.Repo, Author: w.Author, Provenance: w.Provenance, At: normalTime(w.At), Version: cur.Version + 1,
		Entries: cur.Entries, Bytes: cur.Bytes}
	puts := s.skipCollisions(p, w.Puts, w.Deletes)
	if w.AllOrNothing && len(p.Skipped) > 0 {
		return p, nil // no change: the caller answers the current state
	}
	s.planPuts(p, puts)
	s.planDeletes(p, w.Deletes)
	if err := checkLimits(cur, p, w); err != nil {
		return nil, err
	}
	return p, nil
}

// skipCollisions returns puts without those that would create a key folding
// like a key live after the write (an existing one not being deleted, or
// one created before it), which it lists in p.Skipped.
func (s *Set) skipCollisions(p *Plan, puts []server.Put, deletes []string) []server.Put {
	var deleting map[string]bool
	seen := map[string]string{}
	kept := puts[:0:0]
	for _, put := range puts {
		if _, live := s.entries[put.Key]; live {
			kept = append(kept, put)
			continue
		}
		if deleting == nil {
			deleting = make(map[string]bool, len(deletes))
			for _, k := range deletes {
				deleting[k] = true
			}
		}
		other := ""
		for _, o := range s.collisions(put.Key) {
			if !deleting[o] {
				other = o
				break
			}
		}
		f := protocol.FoldKey(put.Key)
		if other == "" {
			other = seen[f]
		}
		if other != "" {
			p.Skipped = append(p.Skipped, server.Skipped{Key: put.Key, Reason: server.ReasonKeyCollision, Existing: other,
				Message: fmt.Sprintf("%q differs from %q only in case; macOS and Windows would store both as one file, so rename one", put.Key, other)})
			continue
		}
		seen[f] = put.Key
		kept = append(kept, put)
	}
	return kept
}

// planPuts adds the puts that change something.
func (s *Set) planPuts(p *Plan, puts []server.Put) {
	for _, put := range puts {
		old, live := s.entries[put.Key]
		if live && old.Checksum == put.Checksum {
			continue
		}
		if live {
			p.Bytes -= old.Size
		} else {
			p.Entries++
		}
		size := int64(len(put.Content))
		p.Bytes += size
		p.Changes = append(p.Changes, Change{Op: server.OpPut, Key: put.Key, Content: put.Content,
			Checksum: put.Checksum, Size: size})
		p.Changed = append(p.Changed, put.Key)
	}
}

// planDeletes adds the deletes of live keys.
func (s *Set) planDeletes(p *Plan, keys []string) {
	for _, key := range keys {
		old, live := s.entries[key]
		if !live {
			continue
		}
		p.Entries--
		p.Bytes -= old.Size
		p.Changes = append(p.Changes, Change{Op: server.OpDelete, Key: key, Checksum: old.Checksum, Size: old.Size})
		p.Deleted = append(p.Deleted, key)
	}
}

// checkLimits refuses a write that leaves the repository over a limit and
// grows it; a write that shrinks or keeps an over-limit repository (after
// the limit was lowered) passes, so deleting is always possible.
func checkLimits(cur server.RepoState, p *Plan, w server.Write) error {
	if w.MaxEntries > 0 && p.Entries > w.MaxEntries && p.Entries > cur.Entries {
		return &server.TooManyEntriesError{Max: w.MaxEntries, Received: p.Entries}
	}
	if w.MaxRepoBytes > 0 && p.Bytes > w.MaxRepoBytes && p.Bytes > cur.Bytes {
		return &server.RepoTooLargeError{Max: w.MaxRepoBytes, Bytes: p.Bytes}
	}
	return nil
}

// apply changes s to the state after p and fills p.Checksum.
func (s *Set) apply(p *Plan) {
	for _, c := range p.Changes {
		if c.Op == server.OpDelete {
			s.Delete(c.Key)
		} else {
			s.Put(c.Key, Entry{Checksum: c.Checksum, Size: c.Size})
		}
	}
	s.version = p.Version
	p.Checksum = s.Checksum()
}

// normalTime returns t (now when zero) in UTC at the microsecond precision
// both stores keep.
func normalTime(t time.Time) time.Time {
	if t.IsZero() {
		t = time.Now()
	}
	return t.UTC().Truncate(time.Microsecond)
}
