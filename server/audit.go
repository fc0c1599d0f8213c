package server

import (
	"context"
	"time"
)

// ServerChain is the audit chain of the server's own acts (tokens, and
// whatever names no repository); every repository has its own chain,
// named by its slug.
const ServerChain = ""

// AuditAction names what an audit record records.
type AuditAction string

// The acts recorded in the audit log.
const (
	AuditWrite         AuditAction = "write"           // a version of a repository (puts, deletes, restores)
	AuditErase         AuditAction = "erase"           // a repository emptied (personal delete)
	AuditTokenCreate   AuditAction = "token.create"    // a token issued by the server's key
	AuditTokenRevoke   AuditAction = "token.revoke"    // a token, or a subject's tokens, revoked
	AuditPolicy        AuditAction = "review.policy"   // a repository's review policy set
	AuditApprove       AuditAction = "review.approve"  // a proposal approved (and applied)
	AuditReject        AuditAction = "review.reject"   // a proposal rejected
	AuditWithdraw      AuditAction = "review.withdraw" // a proposal withdrawn by its author
	AuditUpkeep        AuditAction = "upkeep.set"      // a repository's upkeep settings set
	AuditSessionStart  AuditAction = "session.start"   // an OAuth session consented to (a client signed in)
	AuditSessionRevoke AuditAction = "session.revoke"  // an OAuth session ended
)

// AuditRecord is one act in the append-only audit log: what was done, by
// whom and through what, to which chain (Repo, or ServerChain). It never
// holds an entry's content, only keys and checksums. Its JSON encoding
// (AuditBody) is what the chain hashes, so fields are only ever added.
type AuditRecord struct {
	Repo     string            `json:"repo,omitempty"` // the chain; "" for the server's
	At       time.Time         `json:"at"`
	Action   AuditAction       `json:"action"`
	By       AuditActor        `json:"by"`
	Version  int64             `json:"version,omitempty"`  // the repository's version after the act
	Checksum string            `json:"checksum,omitempty"` // its dataset checksum after the act
	Changes  []AuditChange     `json:"changes,omitempty"`  // a write's keys
	Detail   map[string]string `json:"detail,omitempty"`   // what else the act names (a token id, a subject)
}

// AuditActor is who did an act: a write's provenance, or for an
// administrator's command the operator running it.
type AuditActor struct {
	Subject     string `json:"subject"`
	DisplayName string `json:"displayName,omitempty"`
	Credential  string `json:"credential,omitempty"`
	Surface     string `json:"surface,omitempty"`
	Client      string `json:"client,omitempty"`
	Machine     string `json:"machine,omitempty"`
	Commit      string `json:"commit,omitempty"`
	// ApprovedBy and Proposal name, on the write that applied an approved
	// proposal, the reviewer and the proposal; the rest is its author's.
	ApprovedBy string `json:"approvedBy,omitempty"`
	Proposal   int64  `json:"proposal,omitempty"`
}

// ActorOf is the actor a write's provenance names.
func ActorOf(p Provenance) AuditActor {
	return AuditActor{Subject: p.Subject, DisplayName: p.DisplayName, Credential: p.Credential, Surface: string(p.Surface),
		Client: p.Client, Machine: p.Machine, Commit: p.Commit, ApprovedBy: p.ApprovedBy, Proposal: p.Proposal}
}

// AuditChange is one key a write changed.
type AuditChange struct {
	Key      string `json:"key"`
	Op       Op     `json:"op"`
	Checksum string `json:"checksum"`
}

// AuditEntry is an AuditRecord as a chain holds it: its place (Seq, from
// 1), the hash of the entry before (Prev, empty for the first of a chain)
// and its own Hash, AuditHash(Prev, Seq, Body). Body is the record's
// encoding as it was hashed.
type AuditEntry struct {
	Chain   string
	Seq     int64
	At      time.Time
	Subject string // the actor's subject (By.Subject), for a person's own records
	Prev    []byte
	Hash    []byte
	Body    []byte
}

// AuditHead is the last entry of a chain as the chain's head row records
// it: a deleted last entry leaves the head ahead of the log.
type AuditHead struct {
	Chain string
	Seq   int64
	Hash  []byte
}

// AuditCheckpoint is a chain's head signed with the server's key at a
// time: what the chain held cannot be rewritten up to Seq without the key.
// The newest checkpoint older than the retention is the anchor a pruned
// chain starts from.
type AuditCheckpoint struct {
	Chain     string
	Seq       int64
	Hash      []byte
	At        time.Time
	KeyID     string // which key signed: the hex of its public key's first 8 bytes
	Signature []byte
}

// AuditQuery selects audit entries: one chain, or every one with All;
// only those at or after Since when it is not zero; only those after
// number After; only those whose actor is Subject when it is not "".
type AuditQuery struct {
	Chain   string
	All     bool
	Since   time.Time
	After   int64
	Subject string
}

// AuditLog is a store's append-only audit log: one hash chain per
// repository and one for the server. Both stores implement it; every
// method is safe for concurrent use, and appends to one chain from many
// processes on one database are serialised (the chain's head row is
// locked in the appending transaction).
type AuditLog interface {
	// AppendAudit appends recs, in order, each to its chain, in one
	// transaction of its own. A store's writes and administrative acts
	// append theirs inside their own transactions instead.
	AppendAudit(ctx context.Context, recs []AuditRecord) error
	// AuditHeads returns every chain's head, sorted by chain.
	AuditHeads(ctx context.Context) ([]AuditHead, error)
	// AuditEntries hands visit the entries q selects, by chain and then
	// by Seq. An error from visit stops the read and is returned.
	AuditEntries(ctx context.Context, q AuditQuery, visit func(AuditEntry) error) error
	// SaveAuditCheckpoint records c; a checkpoint of a chain at a Seq
	// already checkpointed changes nothing.
	SaveAuditCheckpoint(ctx context.Context, c AuditCheckpoint) error
	// AuditCheckpoints returns every checkpoint, by chain and then by Seq.
	AuditCheckpoints(ctx context.Context) ([]AuditCheckpoint, error)
	// PruneAudit removes, of each chain, the entries up to its newest
	// checkpoint made before before (the anchor it then starts from) and
	// the checkpoints older than that one. It returns how many entries it
	// removed.
	PruneAudit(ctx context.Context, before time.Time) (int64, error)
}

type auditActorKey struct{}

// WithAuditActor returns ctx carrying who does the administrative acts
// made with it (a token created, a repository erased): the stores record
// it in the audit entries they append for them.
func WithAuditActor(ctx context.Context, a AuditActor) context.Context {
	return context.WithValue(ctx, auditActorKey{}, a)
}

// AuditActorFrom returns the actor WithAuditActor put in ctx, or one
// whose subject is Unknown.
func AuditActorFrom(ctx context.Context) AuditActor {
	if a, ok := ctx.Value(auditActorKey{}).(AuditActor); ok {
		return a
	}
	return AuditActor{Subject: Unknown}
}
