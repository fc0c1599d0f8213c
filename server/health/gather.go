package health

import (
	"context"
	"time"

	"github.com/teammem/teammem/server"
)

// Options are a repository's upkeep settings that change what Gather
// reports.
type Options struct {
	// Now is the time of the check (zero: the clock's).
	Now time.Time
	// UnusedAfter > 0 reports topics neither read nor changed for that
	// long (off by default).
	UnusedAfter time.Duration
	// Reads, when not nil, says when each key of a repository was last
	// read, and since when reads are kept; without it nothing is unused.
	Reads func(ctx context.Context, repo string) (map[string]time.Time, time.Time, error)
}

// Read reads what Check needs of repo through svc, for p (a read grant).
// Errors: Service.Snapshot's (an invalid repo, ErrForbidden, ErrNotFound
// for a repository that never held data) and the store's.
func Read(ctx context.Context, svc *server.Service, p server.Principal, repo string, o Options) (Input, error) {
	snap, err := svc.Snapshot(ctx, p, repo, server.ReadOptions{WithContent: true})
	if err != nil {
		return Input{}, err
	}
	stale, err := svc.StaleWarnings(ctx, p, snap.Repo)
	if err != nil {
		return Input{}, err
	}
	if o.Now.IsZero() {
		o.Now = time.Now().UTC()
	}
	in := Input{Repo: snap.Repo, Version: snap.Version, Now: o.Now, Topics: snap.Live, Stale: stale}
	if o.UnusedAfter > 0 && o.Reads != nil {
		in.UnusedAfter = o.UnusedAfter
		if in.Reads, in.ReadsSince, err = o.Reads(ctx, snap.Repo); err != nil {
			return Input{}, err
		}
	}
	return in, nil
}

// Gather is Read, then Check.
func Gather(ctx context.Context, svc *server.Service, p server.Principal, repo string, o Options) (Report, error) {
	in, err := Read(ctx, svc, p, repo, o)
	if err != nil {
		return Report{}, err
	}
	return Check(in), nil
}
