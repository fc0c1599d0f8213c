// Package mcptools holds the team memory tools of the Model Context Protocol
// (list_memories, search_memories, read_memory, write_memory, delete_memory,
// memory_history, memory_health, and list_proposals and review_proposal for repositories
// that review writes) and the server instructions, written once over Backend:
// teammem-server serves them on /mcp over its domain Service (server/mcp),
// teammem-agent over stdio through the REST client (client/mcprest). It
// imports memcore/protocol, memcore/secrets and the MCP SDK only, so the
// server links no client code and the agent no server code.
package mcptools

import (
	"context"
	"errors"
	"time"
)

// IndexKey is the key of a repository's index.
const IndexKey = "MEMORY.md"

// Kinds of backend errors the tools tell apart, matched with errors.Is. A
// backend marks its errors with Mark; an error of no kind is a failure of
// the backend (unreachable, internal), not a refusal.
var (
	ErrNotFound  = errors.New("not found")           // the repository or key does not exist
	ErrForbidden = errors.New("forbidden")           // the token has no grant for the repository
	ErrConflict  = errors.New("precondition failed") // a conditional write lost a race
	ErrInvalid   = errors.New("invalid")             // the request is refused for what it holds
	ErrLimit     = errors.New("over a bound")        // the call is refused for a bound of the server: its rate, time or reply size
)

// Mark returns err matching kind too (errors.Is), keeping its message.
func Mark(err, kind error) error {
	if err == nil {
		return nil
	}
	return &kindError{err: err, kind: kind}
}

// Kind pairs an error a backend's layer below returns (matched with
// errors.Is) with the kind the tools tell apart.
type Kind struct{ Cause, Kind error }

// MarkKind marks err with the kind of the first pair whose cause it
// matches; ok is false when none does (err is returned as it is).
func MarkKind(err error, kinds []Kind) (marked error, ok bool) {
	for _, k := range kinds {
		if errors.Is(err, k.Cause) {
			return Mark(err, k.Kind), true
		}
	}
	return err, false
}

type kindError struct{ err, kind error }

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.err, e.kind} }

// CreateOnly, as Write.IfMatch, applies a write only while the repository
// has never held data.
const CreateOnly = "create-only"

// State is a repository's summary with the checksum of each live entry. A
// repository that never held data has version 0 and no entries.
type State struct {
	Repo     string
	Version  int64
	Checksum string
	Entries  map[string]string // key → "sha256:<hex>"
}

// Entry is one live entry with its content and its last change.
type Entry struct {
	Key      string
	Checksum string
	Size     int64
	Content  string
	Author   string    // "" when the backend cannot tell
	At       time.Time // zero when the backend cannot tell
}

// Revision is one change of one key; Content is filled by Backend.Revision
// only.
type Revision struct {
	Version  int64
	Op       string // "put" or "delete"
	Checksum string
	Size     int64
	Author   string
	At       time.Time
	Content  string
	// Provenance is the version's; nil when the server did not say.
	Provenance *Provenance
}

// Change is one version of a repository: the keys it put and deleted.
type Change struct {
	Version int64
	At      time.Time
	Author  string
	Changed []string
	Deleted []string
	// Provenance is the version's; nil when the server did not say.
	Provenance *Provenance
}

// Provenance says who made a version and through what, as the server
// stamped it: the subject and credential of the verified token or web
// session, the surface (agent, mcp, rest, web, seed, restore,
// consolidation; unknown for versions written before it was recorded),
// the client, the machine and the checkout's commit an agent named.
type Provenance struct {
	Subject     string `json:"subject"`
	DisplayName string `json:"displayName,omitempty"`
	Credential  string `json:"credential,omitempty"`
	Surface     string `json:"surface,omitempty"`
	Client      string `json:"client,omitempty"`
	Machine     string `json:"machine,omitempty"`
	Commit      string `json:"commit,omitempty"`
}

// Write is one atomic write of a repository.
type Write struct {
	Entries map[string]string
	Deletes []string
	// IfMatch is "" (unconditional), CreateOnly, or the repository checksum
	// the write needs; a write whose condition fails is ErrConflict.
	IfMatch string
	// AllOrNothing applies the write only if no entry is left out: when
	// one would be, nothing is written and WriteResult.Skipped says why.
	AllOrNothing bool
}

// WriteResult is the outcome of a Write that was applied, perhaps without
// some of its entries (Skipped).
type WriteResult struct {
	Version  int64
	Checksum string
	Changed  []string
	Deleted  []string
	Skipped  []Skipped
	// Proposal is the id of the open proposal that holds what a review
	// policy kept from landing; 0 when everything landed.
	Proposal int64
}

// Proposal is a change set waiting for, or decided by, a reviewer.
type Proposal struct {
	ID        int64    `json:"id"`
	Repo      string   `json:"repo"`
	State     string   `json:"state" jsonschema:"open, approved, rejected or withdrawn"`
	Author    string   `json:"author"`
	CreatedAt string   `json:"created_at"`
	Keys      []string `json:"keys" jsonschema:"the keys it changes"`
	Deleted   []string `json:"deleted,omitempty" jsonschema:"the keys of keys it deletes"`
	DecidedBy string   `json:"decided_by,omitempty"`
	Comment   string   `json:"comment,omitempty" jsonschema:"the reviewer's comment"`
}

// Skipped is one entry the backend left out of a write: why, in a sentence
// that never holds the content, and the credential rule for a secret.
type Skipped struct {
	Key     string
	Reason  string
	Message string
	RuleID  string
}

// Hit is one search result.
type Hit struct {
	Repo    string
	Key     string
	Snippet string
}

// Found is what a search found: its hits and, when the backend could not
// search as asked and searched otherwise (the agent's backend with the
// server unreachable searches the local memory folder), a sentence saying
// so.
type Found struct {
	Hits []Hit
	Note string
}

// Backend is what the tools need of team memory, as seen by one caller
// (its grants apply). Every method is safe for concurrent use. Errors are
// marked with the kinds above where they apply.
type Backend interface {
	// State returns a repository's summary; a never-written repository is
	// version 0, not an error.
	State(ctx context.Context, repo string) (State, error)
	// List returns the live entries of a repository with their content,
	// sorted by key (none for a never-written repository).
	List(ctx context.Context, repo string) ([]Entry, error)
	// History returns a key's revisions, newest first, at most limit.
	History(ctx context.Context, repo, key string, limit int) ([]Revision, error)
	// Revision returns one revision of a key with its content; version 0
	// is the key's newest revision (a delete too), in one look where the
	// backend can.
	Revision(ctx context.Context, repo, key string, version int64) (Revision, error)
	// Activity returns a repository's versions, newest first, at most limit.
	Activity(ctx context.Context, repo string, limit int) ([]Change, error)
	// Write applies one write atomically (with the same validation, limits
	// and secret refusal as any push), all of it or nothing with
	// Write.AllOrNothing.
	Write(ctx context.Context, repo string, w Write) (WriteResult, error)
	// Search finds memories matching query in repo, or, when repo is "",
	// in every repository the caller can read; at most limit hits.
	Search(ctx context.Context, query, repo string, limit int) (Found, error)
	// Proposals lists proposals newest first, of repo or, when repo is
	// "", of every repository the caller can read; state "" is every
	// state. At most limit.
	Proposals(ctx context.Context, repo, state string, limit int) ([]Proposal, error)
	// Review approves or rejects a proposal (decision "approve" or
	// "reject"); a proposal decided already, or whose keys moved and do
	// not merge, is ErrConflict.
	Review(ctx context.Context, id int64, decision, comment string) (Proposal, error)
	// Health checks a repository's memories (ErrNotFound for a
	// never-written one).
	Health(ctx context.Context, repo string) (Health, error)
}
