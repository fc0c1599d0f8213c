package writeplan

import (
	"errors"
	"fmt"
	"time"

	"github.com/teammem/teammem/server"
)

// EventsRead is one Store.Events call.
type EventsRead struct {
	Repo  string
	After int64
	Limit int
}

// Last checks the read against the repository's state and since-floor,
// as a store read them (an error wrapping server.ErrNotFound: a
// never-written repository), and returns the last version to read: at
// most Limit versions after After. Versions are contiguous (every write
// that changes something bumps the version by one and records a
// revision), so the range bounds the read by versions, not rows.
func (q EventsRead) Last(st server.RepoState, floor int64, err error) (int64, error) {
	if errors.Is(err, server.ErrNotFound) {
		st, floor, err = EmptyState(q.Repo), 0, nil
	}
	if err != nil {
		return 0, err
	}
	if q.After > st.Version || (q.After > 0 && q.After < floor) {
		return 0, fmt.Errorf("events of %s after %d (history from %d to %d): %w",
			q.Repo, q.After, floor, st.Version, server.ErrSinceTooOld)
	}
	return min(st.Version, q.After+int64(max(q.Limit, 1))), nil
}

// EventRows groups revision rows, read in (version, key) order, into one
// event per version.
type EventRows struct {
	Repo   string
	Events []*server.Event
}

// Add records one revision row; prov is its version's provenance, whose
// Subject is the revision's author.
func (r *EventRows) Add(version int64, key string, op server.Op, at time.Time, checksum string, prov server.Provenance) {
	n := len(r.Events)
	if n == 0 || r.Events[n-1].Version != version {
		r.Events = append(r.Events, &server.Event{Repo: r.Repo, Version: version, Checksum: checksum,
			Changed: []string{}, Deleted: []string{}, Author: prov.Subject, At: at.UTC(), Provenance: prov})
		n++
	}
	ev := r.Events[n-1]
	if op == server.OpDelete {
		ev.Deleted = append(ev.Deleted, key)
	} else {
		ev.Changed = append(ev.Changed, key)
	}
}
