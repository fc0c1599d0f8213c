package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/memcore"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/memcore/secrets"
)

// HistoryRemote is what the history commands (log, show, diff, restore)
// need of the server; *client.Client satisfies it. Errors are those of
// client.Client.
type HistoryRemote interface {
	Activity(ctx context.Context, repo string, opts client.HistoryOptions) (*api.Activity, error)
	History(ctx context.Context, repo, key string, opts client.HistoryOptions) (*api.History, error)
	Revision(ctx context.Context, repo, key string, version int64) (*api.RevisionContent, error)
	Hashes(ctx context.Context, repo string) (*api.Hashes, error)
	Put(ctx context.Context, repo string, req api.PutRequest, ifMatch string) (*api.PutResponse, error)
}

var _ HistoryRemote = (*client.Client)(nil)

// Errors of the history operations, matched with errors.Is.
var (
	// ErrNoSuchVersion: the key did not exist (or was deleted) at the
	// version asked for.
	ErrNoSuchVersion = errors.New("no such version")
	// ErrNothingToRestore: the key is live and no version was named.
	ErrNothingToRestore = errors.New("nothing to restore")
	// ErrSecretInVersion: the version asked for holds a credential.
	ErrSecretInVersion = errors.New("the version holds a credential")
)

// Activity returns up to limit versions of repo newest first, reading as
// many pages as it takes; next is the before of the following page (0:
// none).
func Activity(ctx context.Context, r HistoryRemote, repo string, limit int) (items []api.ActivityItem, next int64, err error) {
	items = []api.ActivityItem{}
	for {
		page, err := r.Activity(ctx, repo, client.HistoryOptions{Limit: limit - len(items), Before: next})
		if err != nil {
			return nil, 0, err
		}
		items = append(items, page.Items...)
		next = 0
		if page.Next != nil {
			next = *page.Next
		}
		if next == 0 || len(items) >= limit || len(page.Items) == 0 {
			return items, next, nil
		}
	}
}

// RevisionAt returns key as it was at version (the newest revision at or
// before it, with its content); version 0 means the latest. A delete is
// returned as it is (Op "delete", empty content). Errors: ErrNoSuchVersion
// (wrapped) when key did not exist yet at version, client.ErrNotFound when
// it never existed, and the remote's.
func RevisionAt(ctx context.Context, r HistoryRemote, repo, key string, version int64) (*api.RevisionContent, error) {
	opts := client.HistoryOptions{Limit: 1}
	if version > 0 {
		opts.Before = version + 1
	}
	h, err := r.History(ctx, repo, key, opts)
	if err != nil {
		return nil, err
	}
	if len(h.Revisions) == 0 {
		return nil, fmt.Errorf("%s did not exist yet at version %d: %w", key, version, ErrNoSuchVersion)
	}
	return r.Revision(ctx, repo, key, h.Revisions[0].Version)
}

// DeletedError is the error of LiveAt for a key deleted at the version
// asked for; it wraps ErrNoSuchVersion.
type DeletedError struct {
	Key       string
	DeletedIn int64 // the version that deleted it
	// LastContent is the version of the put before the delete, the content
	// it deleted (0 when it could not be read).
	LastContent int64
}

func (e *DeletedError) Error() string {
	return fmt.Sprintf("%s was deleted at version %d", e.Key, e.DeletedIn)
}

func (e *DeletedError) Unwrap() error { return ErrNoSuchVersion }

// LiveAt is RevisionAt for content: a key deleted at version is a
// *DeletedError (ErrNoSuchVersion too), naming the version of the content
// the delete took away.
func LiveAt(ctx context.Context, r HistoryRemote, repo, key string, version int64) (*api.RevisionContent, error) {
	rev, err := RevisionAt(ctx, r, repo, key, version)
	if err != nil {
		return nil, err
	}
	if rev.Op == api.OpDelete {
		e := &DeletedError{Key: key, DeletedIn: rev.Version}
		// The revision before a delete is the put it deleted: a deleted
		// key is not deleted again.
		if h, err := r.History(ctx, repo, key, client.HistoryOptions{Limit: 1, Before: rev.Version}); err == nil &&
			len(h.Revisions) == 1 && h.Revisions[0].Op == api.OpPut {
			e.LastContent = h.Revisions[0].Version
		}
		return nil, e
	}
	return rev, nil
}

// lastLive returns the newest revision of key that put content.
func lastLive(ctx context.Context, r HistoryRemote, repo, key string) (*api.RevisionContent, error) {
	var before int64
	for {
		h, err := r.History(ctx, repo, key, client.HistoryOptions{Limit: 100, Before: before})
		if err != nil {
			return nil, err
		}
		if i := slices.IndexFunc(h.Revisions, func(rv api.Revision) bool { return rv.Op == api.OpPut }); i >= 0 {
			return r.Revision(ctx, repo, key, h.Revisions[i].Version)
		}
		if len(h.Revisions) == 0 {
			return nil, fmt.Errorf("%s never held content: %w", key, ErrNoSuchVersion)
		}
		before = h.Revisions[len(h.Revisions)-1].Version
	}
}

// Restored is the outcome of Restore.
type Restored struct {
	Key         string
	FromVersion int64  // the version whose content was brought back
	Version     int64  // the repository's version after the restore
	Checksum    string // the repository's checksum after the restore
	Unchanged   bool   // the key already held that content: nothing was written
}

// maxRestoreAttempts bounds the retries of a restore's conditional PUT when
// other writers keep changing the repository.
const maxRestoreAttempts = 5

// Restore brings back key as it was at version: with version 0, a deleted
// key gets its last live content (a live key is ErrNothingToRestore). It
// writes through a conditional PUT (If-Match the repository's current
// checksum, retried when another write came first), so the restore is a
// version of its own that every agent pulls like any edit. It refuses
// content holding a credential (ErrSecretInVersion, naming the rule, never
// the secret) and a key that is not valid (protocol.ValidateKey).
func Restore(ctx context.Context, r HistoryRemote, repo, key string, version int64) (Restored, error) {
	if err := protocol.ValidateKey(key); err != nil {
		return Restored{}, fmt.Errorf("restore %q: %w", key, err)
	}
	rev, err := restoreSource(ctx, r, repo, key, version)
	if err != nil {
		return Restored{}, err
	}
	if found := secrets.Scan(rev.Content); len(found) > 0 {
		return Restored{}, fmt.Errorf("version %d of %s holds a credential (%s, %s, line %d); restore another version: %w",
			rev.Version, key, found[0].RuleID, found[0].Label, found[0].Line, ErrSecretInVersion)
	}
	out := Restored{Key: key, FromVersion: rev.Version}
	ctx = client.WithSurface(ctx, "restore")
	for attempt := 1; ; attempt++ {
		h, err := r.Hashes(ctx, repo)
		if err != nil {
			return Restored{}, err
		}
		if h.EntryChecksums[key] == rev.Checksum {
			out.Version, out.Checksum, out.Unchanged = h.Version, h.Checksum, true
			return out, nil
		}
		resp, err := r.Put(ctx, repo, api.PutRequest{Entries: map[string]string{key: rev.Content}}, h.Checksum)
		if errors.Is(err, client.ErrPreconditionFailed) && attempt < maxRestoreAttempts {
			continue // another write came first: look again
		}
		if err != nil {
			return Restored{}, fmt.Errorf("restore %s: %w", key, err)
		}
		if !slices.Contains(resp.Changed, key) {
			return Restored{}, fmt.Errorf("restore %s: the server answered without taking the key", key)
		}
		out.Version, out.Checksum = resp.Version, resp.Checksum
		return out, nil
	}
}

// restoreSource picks the revision Restore brings back.
func restoreSource(ctx context.Context, r HistoryRemote, repo, key string, version int64) (*api.RevisionContent, error) {
	if version > 0 {
		return LiveAt(ctx, r, repo, key, version)
	}
	latest, err := RevisionAt(ctx, r, repo, key, 0)
	if err != nil {
		return nil, err
	}
	if latest.Op == api.OpPut {
		return nil, fmt.Errorf("%s is live (last changed at version %d); name an older version with --version: %w",
			key, latest.Version, ErrNothingToRestore)
	}
	return lastLive(ctx, r, repo, key)
}

// ReadLocal reads key from the team folder dir; exists is false when the
// file is not there. Reads stay inside dir (memcore.SafeRead).
func ReadLocal(dir, key string) (content string, exists bool, err error) {
	b, err := memcore.SafeRead(dir, key)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}
