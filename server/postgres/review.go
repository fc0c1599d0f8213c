package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

var _ server.ReviewStore = (*DB)(nil)

// ReviewPolicy returns repo's review policy (server.ReviewStore).
func (db *DB) ReviewPolicy(ctx context.Context, repo string) (server.ReviewPolicy, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var p string
	err := db.pool.QueryRow(ctx, `SELECT review FROM review_policies WHERE repo = $1`, repo).Scan(&p)
	if errors.Is(err, pgx.ErrNoRows) {
		return server.ReviewOff, nil
	}
	return server.ReviewPolicy(p), wrap("read review policy", err)
}

// SetReviewPolicy records repo's review policy (server.ReviewStore).
func (db *DB) SetReviewPolicy(ctx context.Context, repo string, p server.ReviewPolicy, at time.Time) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO review_policies (repo, review, set_at) VALUES ($1, $2, $3)
			ON CONFLICT (repo) DO UPDATE SET review = excluded.review, set_at = excluded.set_at`, repo, string(p), at)
		if err != nil {
			return wrap("set review policy", err)
		}
		return appendAuditTx(ctx, tx, []server.AuditRecord{server.AuditRecordOfPolicy(server.AuditActorFrom(ctx), repo, p, at)})
	})
}

// SaveProposal stores a proposal or amends the author's open one
// (server.ReviewStore). An advisory lock on the repository and author
// keeps two replicas from each making a proposal of one author's pushes.
func (db *DB) SaveProposal(ctx context.Context, d server.ProposalDraft) (server.Proposal, bool, error) {
	prov, err := json.Marshal(d.Provenance)
	if err != nil {
		return server.Proposal{}, false, err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	var p server.Proposal
	var changed bool
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		id, ch, err := saveProposal(ctx, tx, d, string(prov))
		if err != nil {
			return err
		}
		changed = ch
		p, err = readProposal(ctx, tx, id)
		return err
	})
	return p, changed, wrap("save proposal", err)
}

func saveProposal(ctx context.Context, tx pgx.Tx, d server.ProposalDraft, prov string) (int64, bool, error) {
	var id int64
	changes := d.Changes
	if d.Whole {
		same, err := sameWhole(ctx, tx, d)
		if err != nil || same != 0 {
			return same, false, err
		}
	}
	if d.Amend {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))`, d.Repo, d.Provenance.Subject); err != nil {
			return 0, false, err
		}
		err := tx.QueryRow(ctx, `SELECT id FROM proposals WHERE repo = $1 AND author = $2 AND state = 'open' AND NOT whole
			ORDER BY id DESC LIMIT 1`, d.Repo, d.Provenance.Subject).Scan(&id)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return 0, false, err
		}
	}
	if id != 0 {
		held, err := readChanges(ctx, tx, id)
		if err != nil {
			return 0, false, err
		}
		if changes = server.AmendChanges(held, changes); len(changes) == 0 {
			return id, false, nil
		}
		if _, err = tx.Exec(ctx, `UPDATE proposals SET provenance = $1, base_version = $2, updated_at = $3 WHERE id = $4`,
			prov, d.BaseVersion, d.At, id); err != nil {
			return 0, false, err
		}
	} else if err := tx.QueryRow(ctx, `INSERT INTO proposals (repo, state, author, provenance, base_version, created_at, updated_at, whole)
		VALUES ($1, 'open', $2, $3, $4, $5, $5, $6) RETURNING id`, d.Repo, d.Provenance.Subject, prov, d.BaseVersion, d.At, d.Whole).Scan(&id); err != nil {
		return 0, false, err
	}
	for _, c := range changes {
		var base *string
		if !c.BaseAbsent {
			base = &c.Base
		}
		if _, err := tx.Exec(ctx, `INSERT INTO proposal_changes (proposal, key, op, checksum, base, content, note)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (proposal, key) DO UPDATE SET op = excluded.op,
			checksum = excluded.checksum, base = excluded.base, content = excluded.content, note = excluded.note`,
			id, c.Key, string(c.Op()), c.Checksum, base, c.Content, c.Note); err != nil {
			return 0, false, err
		}
	}
	return id, true, nil
}

// sameWhole returns the open whole proposal holding d's changes over its
// base version (see server.ProposalDraft.Whole), 0 when there is none. An
// advisory lock on the repository's whole proposals keeps two replicas
// from each making one of the same change set.
func sameWhole(ctx context.Context, tx pgx.Tx, d server.ProposalDraft) (int64, error) {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1), hashtext('whole proposals'))`, d.Repo); err != nil {
		return 0, err
	}
	rows, err := tx.Query(ctx, `SELECT id FROM proposals WHERE repo = $1 AND state = 'open' AND whole
		AND base_version = $2 ORDER BY id DESC LIMIT $3`, d.Repo, d.BaseVersion, server.MaxSameWhole)
	if err != nil {
		return 0, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, err
	}
	return server.SameProposal(ids, d.Changes, func(id int64) ([]server.ProposedChange, error) { return readChanges(ctx, tx, id) })
}

// querier is what reads run on: the pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func readChanges(ctx context.Context, q querier, id int64) ([]server.ProposedChange, error) {
	rows, err := q.Query(ctx, `SELECT key, op, checksum, base, content, note FROM proposal_changes WHERE proposal = $1 ORDER BY key`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (server.ProposedChange, error) {
		var c server.ProposedChange
		var op string
		var base *string
		err := row.Scan(&c.Key, &op, &c.Checksum, &base, &c.Content, &c.Note)
		c.Delete, c.BaseAbsent = op == string(server.OpDelete), base == nil
		if base != nil {
			c.Base = *base
		}
		return c, err
	})
}

// Proposal returns one proposal with its changes (server.ReviewStore).
func (db *DB) Proposal(ctx context.Context, id int64) (server.Proposal, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	p, err := readProposal(ctx, db.pool, id)
	if errors.Is(err, server.ErrNotFound) {
		return p, err
	}
	return p, wrap("read proposal", err)
}

func readProposal(ctx context.Context, q querier, id int64) (server.Proposal, error) {
	p, err := scanProposal(q.QueryRow(ctx, `SELECT `+writeplan.ProposalColumns+` FROM proposals WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return server.Proposal{}, server.ErrNotFound
	}
	if err != nil {
		return server.Proposal{}, err
	}
	p.Changes, err = readChanges(ctx, q, id)
	return p, err
}

func scanProposal(row pgx.Row) (server.Proposal, error) {
	var p server.Proposal
	var state, prov string
	var decided *time.Time
	err := row.Scan(&p.ID, &p.Repo, &state, &p.Author, &prov, &p.BaseVersion, &p.CreatedAt, &p.UpdatedAt,
		&p.DecidedBy, &decided, &p.Comment, &p.AppliedVersion)
	if err != nil {
		return p, err
	}
	p.State, p.CreatedAt, p.UpdatedAt = server.ProposalState(state), p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	if decided != nil {
		p.DecidedAt = decided.UTC()
	}
	return p, json.Unmarshal([]byte(prov), &p.Provenance)
}

// Proposals lists the proposals q selects, newest first, with their keys
// (server.ReviewStore).
func (db *DB) Proposals(ctx context.Context, q server.ProposalQuery) ([]server.Proposal, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	where, args := []string{"true"}, []any{}
	add := func(cond string, a any) {
		args = append(args, a)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if q.Repo != "" {
		add("repo = $%d", q.Repo)
	}
	if q.State != "" {
		add("state = $%d", string(q.State))
	}
	if q.Author != "" {
		add("author = $%d", q.Author)
	}
	if q.Before > 0 {
		add("id < $%d", q.Before)
	}
	if prefixes := usedPrefixes(q.Prefixes); prefixes != nil {
		add("repo ^@ ANY($%d::text[])", prefixes)
	}
	args = append(args, q.Limit)
	rows, err := db.pool.Query(ctx, `SELECT `+writeplan.ProposalColumns+` FROM proposals WHERE `+strings.Join(where, " AND ")+
		fmt.Sprintf(` ORDER BY id DESC LIMIT $%d`, len(args)), args...)
	if err != nil {
		return nil, wrap("list proposals", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (server.Proposal, error) { return scanProposal(row) })
	if err != nil {
		return nil, wrap("list proposals", err)
	}
	return out, wrap("list proposed keys", db.proposalKeys(ctx, out))
}

// usedPrefixes returns prefixes, or nil when one of them (or none) keeps
// every repository.
func usedPrefixes(prefixes []string) []string {
	for _, p := range prefixes {
		if p == "" {
			return nil
		}
	}
	return prefixes
}

// proposalKeys fills each proposal's changes with its keys and ops.
func (db *DB) proposalKeys(ctx context.Context, props []server.Proposal) error {
	if len(props) == 0 {
		return nil
	}
	index := make(map[int64]int, len(props))
	ids := make([]int64, len(props))
	for i, p := range props {
		index[p.ID], ids[i] = i, p.ID
	}
	rows, err := db.pool.Query(ctx, `SELECT proposal, key, op, checksum FROM proposal_changes
		WHERE proposal = ANY($1) ORDER BY proposal, key`, ids)
	if err != nil {
		return err
	}
	var id int64
	var c server.ProposedChange
	var op string
	_, err = pgx.ForEachRow(rows, []any{&id, &c.Key, &op, &c.Checksum}, func() error {
		c.Delete = op == string(server.OpDelete)
		props[index[id]].Changes = append(props[index[id]].Changes, c)
		return nil
	})
	return err
}

// OpenProposals counts each repository's open proposals
// (server.ReviewStore).
func (db *DB) OpenProposals(ctx context.Context) (map[string]int, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT repo, count(*) FROM proposals WHERE state = 'open' GROUP BY repo`)
	if err != nil {
		return nil, wrap("count open proposals", err)
	}
	out := map[string]int{}
	var repo string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&repo, &n}, func() error {
		out[repo] = n
		return nil
	})
	return out, wrap("count open proposals", err)
}

// DecideProposal moves a proposal from d.From to d.To (server.ReviewStore).
func (db *DB) DecideProposal(ctx context.Context, d server.ProposalDecision) (server.Proposal, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var at *time.Time
	if !d.At.IsZero() {
		at = &d.At
	}
	var p server.Proposal
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE proposals SET state = $1, decided_by = $2, decided_at = $3, comment = $4,
			applied_version = $5 WHERE id = $6 AND state = $7`, string(d.To), d.By, at, d.Comment, d.AppliedVersion, d.ID, string(d.From))
		if err != nil {
			return err
		}
		if p, err = readProposal(ctx, tx, d.ID); err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return &server.ProposalStateError{ID: d.ID, State: p.State}
		}
		if rec, ok := server.AuditRecordOfDecision(server.AuditActorFrom(ctx), d, p); ok {
			return appendAuditTx(ctx, tx, []server.AuditRecord{rec})
		}
		return nil
	})
	if errors.Is(err, server.ErrNotFound) || errors.Is(err, server.ErrConflict) {
		return p, err
	}
	return p, wrap("decide proposal", err)
}
