package server

import (
	"context"
	"time"
)

// Store persists repositories, their entries (live and tombstoned) and one
// revision per changed key per version. Implementations live in child
// packages named for their technology (server/postgres, server/sqlite) and
// all pass the conformance suite in server/storetest.
//
// Every method is safe for concurrent use by many goroutines and, for stores
// shared by several server processes (Postgres), by many processes. Repo
// slugs and keys given to a Store are already canonical and validated by the
// Service; a Store does not re-validate them.
type Store interface {
	// RepoState returns the summary of one repository without reading any
	// entry. It returns an error wrapping ErrNotFound when the repository
	// has never held data.
	RepoState(ctx context.Context, repo string) (RepoState, error)

	// Precondition evaluates a conditional write's preconditions before
	// its content is read (RFC 9110 §13.2.1 evaluates preconditions
	// first), so that a stale writer is refused without its body being
	// decoded or scanned: a *PreconditionError when they do not hold
	// against the current state (see CheckPreconditions). A store may let
	// pass, without reading anything, a write it expects to hold (an
	// If-Match naming the state this process last committed): Apply
	// evaluates the preconditions again, atomically, whatever Precondition
	// answered. The repository need not exist.
	Precondition(ctx context.Context, repo string, c Preconditions) error

	// Snapshot returns the repository's state, its live entries and its
	// tombstones, each sorted by key, read in one consistent transaction.
	// With opts.Since > 0 only keys whose last change has a version greater
	// than Since are returned (the state is still the current one); it
	// returns an error wrapping ErrSinceTooOld when tombstones after Since
	// may have been purged. Content is filled only when opts.WithContent.
	// It returns an error wrapping ErrNotFound when the repository has never
	// held data.
	Snapshot(ctx context.Context, repo string, opts ReadOptions) (Snapshot, error)

	// Apply performs one write atomically: either every put and delete is
	// applied and the version is bumped once (when anything changed), or
	// nothing is. It checks, inside the same transaction:
	//   - w.Policy (when set) against the repository's review policy: a
	//     *PolicyChangedError when it differs, before anything else;
	//   - w.IfMatch (when set) against the current checksum: when no
	//     checksum of the list matches (and it is not "*"), or on any
	//     If-Match on a never-written repository, a *PreconditionError
	//     (wrapping ErrPreconditionFailed);
	//   - w.IfNoneMatch (when set), see CheckIfNoneMatch: "*" on a
	//     repository that has held data, or a listed checksum equal to the
	//     current one, is a *PreconditionError with the current checksum;
	//   - the live entry count after the write against w.MaxEntries, when
	//     the write grows it: *TooManyEntriesError (wrapping
	//     ErrTooManyEntries);
	//   - the live bytes after the write against w.MaxRepoBytes, when the
	//     write grows them: *RepoTooLargeError (wrapping ErrRepoTooLarge).
	// A put that would create a key equal, after protocol.FoldKey, to a key
	// live after the write (an existing one not being deleted, or one
	// created earlier in w.Puts' order) is left out and listed in
	// WriteResult.Skipped with ReasonKeyCollision and the other key as
	// Existing; the limits are checked on what remains.
	// A put whose checksum equals the live entry's is not a change; a
	// delete of an absent or already deleted key is a no-op. A write that
	// changes nothing still succeeds and returns the current state (for a
	// never-written repository the state is the empty one, version 0, and
	// nothing is stored).
	Apply(ctx context.Context, w Write) (WriteResult, error)

	// History returns the revisions of one key, newest first, at most
	// limit of them, only those with a version below before when before >
	// 0. Content is not filled. It returns an error wrapping ErrNotFound
	// when the key never existed in the repository.
	History(ctx context.Context, repo, key string, before int64, limit int) ([]Revision, error)

	// Histories returns the revisions of each of keys, newest first, only
	// those with a version below before when before > 0, in one read (the
	// Service tells a page of activity's restores from them). Content and
	// Provenance are not filled; a key without such revisions is left out.
	Histories(ctx context.Context, repo string, keys []string, before int64) (map[string][]Revision, error)

	// Revision returns one revision of a key with its content (empty for a
	// delete); version 0 is the key's newest revision, whatever its op. It
	// returns an error wrapping ErrNotFound when there is no revision of
	// that key at that version (or none at all).
	Revision(ctx context.Context, repo, key string, version int64) (Revision, error)

	// KeyRevisions hands visit the revisions of one key, oldest first,
	// with their content and provenance: those up to version through, or
	// every one when through is 0. It reads them as one consistent
	// snapshot and holds one revision's content at a time. An error from
	// visit stops the read and is returned. It returns an error wrapping
	// ErrNotFound when the key has no revision up to through.
	KeyRevisions(ctx context.Context, repo, key string, through int64, visit func(Revision) error) error

	// SeenChecksums returns, for each key of want (key → entry checksum),
	// the newest version at which a revision of that key had that checksum
	// (the content put, or for a delete the content deleted); keys with no
	// such revision, or that never existed, are left out. A repository
	// that never held data gives an empty map. The Service bounds len(want).
	SeenChecksums(ctx context.Context, repo string, want map[string]string) (map[string]int64, error)

	// ServerID returns the database's identity: made once, by the migration
	// that created its table, and the same through every Store opened on
	// that database. It does no I/O (it is read when the store opens).
	ServerID() string

	// LastAuthors returns, for each live entry of the repository, the
	// author of its last change (the revision at the entry's version),
	// keyed by entry key. A repository that never held data gives an empty
	// map.
	LastAuthors(ctx context.Context, repo string) (map[string]string, error)

	// Activity returns the repository's versions, newest first: at most
	// limit of them (limit > 0), only those below before when before > 0,
	// each with the keys it changed and deleted. Page.Next is the version
	// to pass as before for the next page, 0 when there is no older
	// version. Its cost depends on the versions returned, not on the
	// length of the history. It returns an error wrapping ErrNotFound when
	// the repository has never held data.
	Activity(ctx context.Context, repo string, before int64, limit int) (ActivityPage, error)

	// Events returns the changes of a repository after version after, one
	// Event per version in increasing version order, at most limit of them
	// (limit > 0). A never-written repository has none after 0. It returns
	// an error wrapping ErrSinceTooOld when after is below the
	// repository's since-floor (tombstones after it may have been purged)
	// or above its version (the data was reset or restored): the reader
	// must start again from a full pull.
	Events(ctx context.Context, repo string, after int64, limit int) ([]*Event, error)

	// Search returns the live entries matching q (see SearchRequest), best
	// first, at most q.Limit of them after skipping q.Offset, with their
	// content. Only q.Repos (or, with q.AllRepos, every repository) are
	// read: the filter is part of the index query. A write is found by
	// every Search that starts after its Apply returned, on every process
	// (the keys a write changes are marked in its transaction and indexed
	// before a search reads them). Best first: the entries whose title or
	// index line holds every term, then the others; in each, the entry
	// written last first, then by repository and key.
	Search(ctx context.Context, q SearchRequest) ([]SearchHit, error)

	// SaveStaleReports records each report as its reporter's report of
	// its entry (repo, Key) at its Commit, replacing the one before
	// there, then keeps StaleReportsKept reports of each entry saved:
	// each reporter's latest first, then each one's report before, and
	// so on, the later reported first within a round. Reports are sorted
	// by key and checked by the Service. It does not need the repository
	// to exist.
	SaveStaleReports(ctx context.Context, repo string, reports []StaleReport) error

	// StaleReports returns every report kept of the entries of repo that
	// q selects, sorted by key, then by commit and reporter, whatever the
	// entry's state now.
	StaleReports(ctx context.Context, repo string, q StaleQuery) ([]StaleReport, error)

	// Repos returns the state of every repository that has held data and
	// whose name starts with prefix ("" for every one), sorted by slug.
	// A search of everything lists the caller's personal repositories by
	// their prefix instead of every repository on each call.
	Repos(ctx context.Context, prefix string) ([]RepoState, error)

	// PurgeTombstones removes tombstones deleted before the given time and
	// raises each affected repository's since-floor so that Snapshot with
	// an older Since answers ErrSinceTooOld. It returns how many
	// tombstones were removed.
	PurgeTombstones(ctx context.Context, before time.Time) (int, error)

	// EraseRepo removes everything repo holds: its entries, live and
	// tombstoned, their revisions, its versions' checksums and provenance,
	// and their search text. The repository
	// stays, empty, at its version plus one, with its since-floor there:
	// no version number is ever used twice (a cache or a reader holding an
	// older one reads it whole again), and a Snapshot since an older
	// version answers ErrSinceTooOld. It returns the state before and
	// after. Errors: ErrNotFound for a repository that never held data.
	// It serves `teammem-server personal delete`; safe for
	// concurrent use with every other method.
	EraseRepo(ctx context.Context, repo string) (before, after RepoState, err error)

	// Ping reports whether the store is reachable and its schema is at the
	// version this build expects.
	Ping(ctx context.Context) error

	// Close releases the store's resources. It is called once, after every
	// other call has returned.
	Close() error
}

// RepoState summarises one repository.
type RepoState struct {
	Repo      string
	Version   int64
	Checksum  string // dataset checksum of the live entries (protocol §3)
	Entries   int    // live entries
	Bytes     int64  // sum of the live entries' sizes in bytes
	UpdatedAt time.Time
}

// Entry is one live entry.
type Entry struct {
	Key       string
	Checksum  string // "sha256:<hex>" of Content
	Size      int64
	Content   string // filled only when asked for
	Version   int64  // version of the entry's last change
	UpdatedAt time.Time
}

// Tombstone is one soft-deleted key.
type Tombstone struct {
	Key       string
	Version   int64 // version of the delete
	DeletedAt time.Time
}

// Snapshot is a repository's state with its entries and tombstones.
type Snapshot struct {
	RepoState
	Live    []Entry     // sorted by key
	Deleted []Tombstone // sorted by key
}

// ReadOptions selects what Snapshot reads.
type ReadOptions struct {
	WithContent bool
	Since       int64 // > 0: only keys changed after this version
	// Stream, when not nil, receives the snapshot as it is read, inside
	// the read transaction: its state once, then each live entry in key
	// order, which is then not kept in Snapshot.Live (tombstones still go
	// to Snapshot.Deleted). A full download of a large repository is so
	// encoded entry by entry without holding it in memory. An error from
	// Stream ends the read and is returned.
	Stream EntryStream
	// Current, when not nil, is the repository's state as RepoState read it
	// after the request arrived: a store may answer with the snapshot at
	// that state (its version) instead of reading the state again, as it
	// would answer had the read run at that moment.
	Current *RepoState
}

// EntryStream receives a snapshot as a Store reads it; see ReadOptions.
type EntryStream interface {
	State(RepoState) error
	Entry(Entry) error
}

// Put is one upsert of a Write.
type Put struct {
	Key      string
	Content  string
	Checksum string // protocol.EntryChecksum of Content, computed by the caller
}

// Write is one atomic change of a repository.
type Write struct {
	Repo         string
	IfMatch      Tags       // none for an unconditional write; "*"; or checksums
	IfNoneMatch  Tags       // none; "*": only while the repository never held data; or checksums
	Puts         []Put      // sorted by key, unique
	Deletes      []string   // sorted, unique, disjoint from Puts
	Author       string     // token subject
	Provenance   Provenance // who and through what, the same for every key (Subject is Author)
	At           time.Time
	MaxEntries   int   // 0: unlimited
	MaxRepoBytes int64 // 0: unlimited
	// AllOrNothing applies nothing when a put is left out (its key
	// collides): the result lists it in Skipped, with the current state.
	AllOrNothing bool
	// Policy, when set, is the review policy the write was cut by
	// (Service.Put): the store applies it only while Repo's policy is
	// still Policy, checked inside the write's own transaction (so that a
	// policy set, through any process, before the write commits holds for
	// it), and otherwise applies nothing and returns a
	// *PolicyChangedError naming the policy it found. The check is made
	// even when the write changes nothing. Empty: the write does not
	// depend on the policy.
	Policy ReviewPolicy
}

// WriteResult is the outcome of a successful Apply.
type WriteResult struct {
	State   RepoState
	Changed []string // keys created or modified, sorted
	Deleted []string // keys tombstoned, sorted
	// Skipped lists the entries left out of the write (protocol §4
	// "Per-entry refusals"), sorted by key; the rest was applied.
	Skipped []Skipped
	// Proposal is the open proposal the changes a review policy held back
	// were saved to (Service.Put only); nil when none was.
	Proposal *Proposal
}

// Skipped is one entry of a PUT left out instead of refusing the whole PUT:
// its key, why (one of the Reasons of a per-entry refusal) and a sentence a
// person can act on. RuleID and Label name the credential rule of a
// ReasonSecretDetected, Existing the live key of a ReasonKeyCollision.
// Nothing of the entry's content is ever carried, and a key holding a
// credential is carried redacted (Skipped.Of matches it).
type Skipped struct {
	Key      string
	Reason   Reason
	Message  string
	RuleID   string
	Label    string
	Existing string
}

// Op is the kind of a revision.
type Op string

// Revision operations.
const (
	OpPut    Op = "put"
	OpDelete Op = "delete"
)

// Revision is one change of one key.
type Revision struct {
	Repo     string
	Key      string
	Version  int64
	Op       Op
	Checksum string // of the content put; for a delete, of the content deleted
	Size     int64
	Author   string
	At       time.Time
	Content  string // filled by Store.Revision and Store.KeyRevisions only
	// RestoreOf, on a put that brought back an earlier version's content,
	// is that version (see deriveRestores); filled by Service.History only.
	RestoreOf int64
	// Provenance is the provenance of the version (UnknownProvenance for a
	// version written before it was recorded); its Subject is Author.
	Provenance Provenance
}
