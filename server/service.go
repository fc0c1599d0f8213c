package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/teammem/teammem/memcore/protocol"
)

// MaxSeenEntries is the largest number of entries one SeenChecksums may ask
// about (api.MaxSeenEntries on the wire).
const MaxSeenEntries = 1000

// Limits bound what one repository and one request may hold. Zero means the
// default.
type Limits struct {
	MaxEntries    int   // live entries per repository (default 1,000)
	MaxEntryBytes int   // bytes per entry (default 250,000)
	MaxBodyBytes  int64 // bytes per request body (default 2 MiB); enforced by the HTTP layer
	MaxRepoBytes  int64 // live bytes per repository (default 50 MiB)
}

// Default limits (protocol §2).
const (
	DefaultMaxEntries    = 1000
	DefaultMaxEntryBytes = 250_000
	DefaultMaxBodyBytes  = 2 << 20
	DefaultMaxRepoBytes  = 50 << 20
)

// withDefaults fills zero fields with the defaults.
func (l Limits) withDefaults() Limits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxEntryBytes <= 0 {
		l.MaxEntryBytes = DefaultMaxEntryBytes
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MaxRepoBytes <= 0 {
		l.MaxRepoBytes = DefaultMaxRepoBytes
	}
	return l
}

// CheckEntryCount refuses a push naming n entries when n alone is over the
// entry limit. Such a push is refused whole before any entry is checked
// (rather than checked entry by entry to learn how many would be skipped),
// so what a hostile body costs, and the skipped list it produces, is
// bounded by the limit. Received is n: the live count the push would
// produce were its entries all valid.
func (l Limits) CheckEntryCount(n int) error {
	if max := l.withDefaults().MaxEntries; n > max {
		return &TooManyEntriesError{Max: max, Received: n}
	}
	return nil
}

// Config configures a Service.
type Config struct {
	Org string // reported as organizationId
	Limits
	// SecretScan rejects entries holding credentials (default on; the
	// zero Config has it off, so callers set it explicitly).
	SecretScan bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Events tells subscribers about writes (server/events.Hub); nil
	// means none: writes are told to nobody and Subscribe fails with
	// ErrUnavailable.
	Events Events
	// Review keeps review policies and proposals; nil: every repository's
	// policy is off and none can be set.
	Review ReviewStore
	// OnReview, when set, is told every review decision and policy change
	// once it is stored; it must not block. The audit log does not need
	// it: the store appends each act's record in the act's transaction.
	OnReview func(context.Context, ReviewAct)
	// Served takes what every surface serves (RecordServed); nil means
	// nothing is recorded.
	Served ServedRecorder
	// Audit is the audit log AuditEntries reads; nil means none is kept.
	Audit AuditLog
	// Reads is told of the keys a caller reads (Revision, Search's hits);
	// nil: nobody.
	Reads ReadNoter
}

// Service is the domain of the server: it canonicalises repositories, makes
// every authorization decision, validates keys and content, applies the
// limits and the secret scanner, and talks to the Store. It is safe for
// concurrent use.
type Service struct {
	store   Store
	cfg     Config
	guesses *policyGuesses // review policies as last learned, for writes
}

// NewService returns a Service over store.
func NewService(store Store, cfg Config) *Service {
	cfg.Limits = cfg.Limits.withDefaults()
	if cfg.Org == "" {
		cfg.Org = "default"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Events == nil {
		cfg.Events = noEvents{}
	}
	return &Service{store: store, cfg: cfg, guesses: &policyGuesses{}}
}

// Org returns the configured organization name.
func (s *Service) Org() string { return s.cfg.Org }

// Limits returns the effective limits.
func (s *Service) Limits() Limits { return s.cfg.Limits }

// Store returns the underlying store (for readiness checks and wiring).
func (s *Service) Store() Store { return s.store }

// Subscribe opens the events stream of a repository for p, which needs
// read access (the repository need not exist yet); see Events.Subscribe for
// after and resume. Of the repository's proposal updates, p is told those
// it may decide (canReview) and those it wrote. Errors: invalid repo, ErrForbidden, ErrTooManyStreams,
// ErrShuttingDown, the store's.
func (s *Service) Subscribe(ctx context.Context, p Principal, repo string, after int64, resume bool) (Subscription, error) {
	canon, err := s.authorize(p, repo, PermRead)
	if err != nil {
		return nil, err
	}
	sub, err := s.cfg.Events.Subscribe(ctx, canon, p.Subject, after, resume)
	if err != nil {
		return nil, err
	}
	return &proposalFilter{Subscription: sub, p: p, repo: canon}, nil
}

// authorize canonicalises repo and checks that p holds perm on it. A caller
// without read access gets ErrForbidden whatever the repository's existence,
// so it cannot learn whether it exists. "~/<slug>" names p's own personal
// repository of slug.
func (s *Service) authorize(p Principal, repo string, perm Perm) (string, error) {
	canon, err := ResolveRepo(p, repo)
	if err != nil {
		return "", err
	}
	if !p.Can(canon, perm) {
		return "", &ForbiddenError{Subject: p.Subject, Repo: canon, Need: perm}
	}
	return canon, nil
}

// Authorize canonicalises repo and checks that p holds perm on it, for
// the packages that act on a repository through the Service (upkeep).
// Errors: an invalid repo, ErrForbidden.
func (s *Service) Authorize(p Principal, repo string, perm Perm) (string, error) {
	return s.authorize(p, repo, perm)
}

// State returns a repository's summary without reading entries (for
// conditional requests). Errors: invalid repo, ErrForbidden, ErrNotFound.
func (s *Service) State(ctx context.Context, p Principal, repo string) (RepoState, error) {
	canon, err := s.authorize(p, repo, PermRead)
	if err != nil {
		return RepoState{}, err
	}
	return s.store.RepoState(ctx, canon)
}

// Snapshot reads a repository (full, hashes only, or since a version).
// Errors: invalid repo, ErrForbidden, ErrNotFound, ErrSinceTooOld.
func (s *Service) Snapshot(ctx context.Context, p Principal, repo string, opts ReadOptions) (Snapshot, error) {
	canon, err := s.authorize(p, repo, PermRead)
	if err != nil {
		return Snapshot{}, err
	}
	if opts.Since < 0 {
		return Snapshot{}, invalidf(ReasonInvalidParameter, "since must be a non-negative version number")
	}
	return s.store.Snapshot(ctx, canon, opts)
}

// History returns revisions of one key, newest first, each put that
// brought back an earlier version's content with RestoreOf.
func (s *Service) History(ctx context.Context, p Principal, repo, key string, before int64, limit int) ([]Revision, error) {
	canon, err := s.authorize(p, repo, PermRead)
	if err != nil {
		return nil, err
	}
	if err := validateKey(key); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 1000 {
		limit = 100
	}
	if before < 0 {
		return nil, invalidf(ReasonInvalidParameter, "before must be a non-negative version number")
	}
	revs, err := s.store.History(ctx, canon, key, before, limit)
	if err != nil {
		return nil, err
	}
	if err := s.markRestores(ctx, canon, key, revs, limit); err != nil {
		return nil, err
	}
	return revs, nil
}

// Revision returns one revision of a key with its content; version 0 is
// the key's newest revision (a delete too).
func (s *Service) Revision(ctx context.Context, p Principal, repo, key string, version int64) (Revision, error) {
	canon, err := s.authorize(p, repo, PermRead)
	if err != nil {
		return Revision{}, err
	}
	if err := validateKey(key); err != nil {
		return Revision{}, err
	}
	if version < 0 {
		return Revision{}, invalidf(ReasonInvalidParameter, "version must be a positive version number, or none for the newest revision")
	}
	rev, err := s.store.Revision(ctx, canon, key, version)
	if err == nil {
		s.noteRead(canon, key)
	}
	return rev, err
}

// KeyRevisions hands visit the revisions of a key up to version through
// (0: all of them), oldest first, with their content and provenance (see
// Store.KeyRevisions). Errors: invalid repo or key, a negative through
// (ErrInvalid), ErrForbidden, ErrNotFound when the key has no revision up
// to through, visit's.
func (s *Service) KeyRevisions(ctx context.Context, p Principal, repo, key string, through int64, visit func(Revision) error) error {
	canon, err := s.authorize(p, repo, PermRead)
	if err != nil {
		return err
	}
	if err := validateKey(key); err != nil {
		return err
	}
	if through < 0 {
		return invalidf(ReasonInvalidParameter, "version must be a positive version number, or none for the newest revision")
	}
	return s.store.KeyRevisions(ctx, canon, key, through, visit)
}

// Repos lists the repositories p can read.
func (s *Service) Repos(ctx context.Context, p Principal) ([]RepoState, error) {
	return s.reposUnder(ctx, p, p.listPrefixes())
}

// reposUnder lists the repositories p can read among those whose names
// start with one of prefixes, sorted by slug: prefixes are sorted and none
// starts with another, so their lists follow one another in order.
// Listing by the grants' prefixes instead of every repository matters on
// a hot path: a search of everything lists what it may read on every
// call.
func (s *Service) reposUnder(ctx context.Context, p Principal, prefixes []string) ([]RepoState, error) {
	var out []RepoState
	for _, prefix := range prefixes {
		states, err := s.store.Repos(ctx, prefix)
		if err != nil {
			return nil, fmt.Errorf("list repos: %w", err)
		}
		for _, st := range states {
			if p.Can(st.Repo, PermRead) {
				out = append(out, st)
			}
		}
	}
	return out, nil
}

// Precondition checks a conditional write's If-Match and If-None-Match
// against the current state before the request's content is read (see
// Store.Precondition), so that a stale writer is answered 412 without
// decoding or scanning its body. The Store checks again, atomically, when
// the write is applied. Errors: invalid repo, ErrForbidden, the store's
// errors, *PreconditionError.
func (s *Service) Precondition(ctx context.Context, p Principal, repo string, c Preconditions) error {
	canon, err := s.authorize(p, repo, PermWrite)
	if err != nil || c == (Preconditions{}) {
		return err
	}
	return s.store.Precondition(ctx, canon, c)
}

// CheckPreconditions evaluates c against repo's state as read by
// repoState (a never-written repository has version 0): Store.Precondition
// for a store with nothing cheaper than reading the state.
func CheckPreconditions(ctx context.Context, repoState func(context.Context, string) (RepoState, error), repo string, c Preconditions) error {
	st, err := repoState(ctx, repo)
	if errors.Is(err, ErrNotFound) {
		st, err = RepoState{Repo: repo}, nil
	}
	if err != nil {
		return err
	}
	return c.Check(st)
}

// LastAuthors returns who last changed each live entry of a repository.
// Errors: invalid repo, ErrForbidden, the store's errors.
func (s *Service) LastAuthors(ctx context.Context, p Principal, repo string) (map[string]string, error) {
	canon, err := s.authorize(p, repo, PermRead)
	if err != nil {
		return nil, err
	}
	return s.store.LastAuthors(ctx, canon)
}

// ServerID returns the identity of the database the service keeps (see
// Store.ServerID).
func (s *Service) ServerID() string { return s.store.ServerID() }

// SeenChecksums tells, for each key of want (key → entry checksum), the
// newest version of the repository at which the key held, or was deleted
// holding, that content (see Store.SeenChecksums). Errors: invalid repo,
// ErrForbidden, more than api.MaxSeenEntries keys or an invalid key or
// checksum (ErrInvalid), the store's errors.
func (s *Service) SeenChecksums(ctx context.Context, p Principal, repo string, want map[string]string) (map[string]int64, error) {
	canon, err := s.authorize(p, repo, PermRead)
	if err != nil {
		return nil, err
	}
	if len(want) > MaxSeenEntries {
		return nil, invalidf(ReasonInvalidBody, "at most %d entries may be asked about at once, not %d", MaxSeenEntries, len(want))
	}
	for k, c := range want {
		if err := protocol.ValidateKey(k); err != nil {
			return nil, invalidf(ReasonInvalidKey, "entry %q: %v", k, err)
		}
		if !protocol.ValidChecksum(c) {
			return nil, invalidf(ReasonInvalidBody, "entry %q: checksum %q is not sha256:<64 hex digits>", k, c)
		}
	}
	if len(want) == 0 {
		return map[string]int64{}, nil
	}
	return s.store.SeenChecksums(ctx, canon, want)
}
