package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/internal/writeplan"
)

var _ server.ReviewStore = (*DB)(nil)

// ReviewPolicy returns repo's review policy (server.ReviewStore), from
// memory after the first read.
func (db *DB) ReviewPolicy(ctx context.Context, repo string) (server.ReviewPolicy, error) {
	return db.policies.get(ctx, repo, db.readPolicies)
}

// readPolicies reads every repository's review policy.
func (db *DB) readPolicies(ctx context.Context) (map[string]server.ReviewPolicy, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT repo, review FROM review_policies`)
	if err != nil {
		return nil, wrap("read review policies", err)
	}
	defer rows.Close()
	all := map[string]server.ReviewPolicy{}
	for rows.Next() {
		var repo, p string
		if err := rows.Scan(&repo, &p); err != nil {
			return nil, wrap("read review policies", err)
		}
		all[repo] = server.ReviewPolicy(p)
	}
	return all, wrap("read review policies", rows.Err())
}

// SetReviewPolicy records repo's review policy (server.ReviewStore).
func (db *DB) SetReviewPolicy(ctx context.Context, repo string, p server.ReviewPolicy, at time.Time) error {
	by := server.AuditActorFrom(ctx) // the job runs in the writer's context
	err := db.execBatch(ctx, "set review policy of "+repo, func(ctx context.Context, b *batch) error {
		_, err := b.tx.ExecContext(ctx, `INSERT INTO review_policies (repo, review, set_at) VALUES (?, ?, ?)
			ON CONFLICT (repo) DO UPDATE SET review = excluded.review, set_at = excluded.set_at`, repo, string(p), micros(at))
		if err != nil {
			return wrap("set review policy", err)
		}
		if err := b.audit.append(ctx, []server.AuditRecord{server.AuditRecordOfPolicy(by, repo, p, at)}); err != nil {
			return err
		}
		b.setPolicy(repo, p) // the writes after it in the batch are checked against it
		return nil
	})
	return err
}

// SaveProposal stores a proposal or amends the author's open one
// (server.ReviewStore), in the writer's next batch.
func (db *DB) SaveProposal(ctx context.Context, d server.ProposalDraft) (server.Proposal, bool, error) {
	prov, err := json.Marshal(d.Provenance)
	if err != nil {
		return server.Proposal{}, false, err
	}
	var id int64
	var changed bool
	err = db.exec(ctx, "save proposal in "+d.Repo, func(ctx context.Context, tx *sql.Tx) error {
		id, changed, err = saveProposal(ctx, tx, d, string(prov))
		return err
	})
	if err != nil {
		return server.Proposal{}, false, err
	}
	p, err := db.Proposal(ctx, id)
	return p, changed, err
}

func saveProposal(ctx context.Context, tx *sql.Tx, d server.ProposalDraft, prov string) (int64, bool, error) {
	var id int64
	changes := d.Changes
	if d.Whole {
		same, err := sameWhole(ctx, tx, d)
		if err != nil || same != 0 {
			return same, false, err
		}
	}
	if d.Amend {
		err := tx.QueryRowContext(ctx, `SELECT id FROM proposals WHERE repo = ? AND author = ? AND state = 'open' AND whole = 0
			ORDER BY id DESC LIMIT 1`, d.Repo, d.Provenance.Subject).Scan(&id)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, false, wrap("find open proposal", err)
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
		_, err = tx.ExecContext(ctx, `UPDATE proposals SET provenance = ?, base_version = ?, updated_at = ? WHERE id = ?`,
			prov, d.BaseVersion, micros(d.At), id)
		if err != nil {
			return 0, false, wrap("amend proposal", err)
		}
	} else {
		err := tx.QueryRowContext(ctx, `INSERT INTO proposals (repo, state, author, provenance, base_version, created_at, updated_at, whole)
			VALUES (?, 'open', ?, ?, ?, ?, ?, ?) RETURNING id`, d.Repo, d.Provenance.Subject, prov, d.BaseVersion,
			micros(d.At), micros(d.At), d.Whole).Scan(&id)
		if err != nil {
			return 0, false, wrap("save proposal", err)
		}
	}
	for _, c := range changes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO proposal_changes (proposal, key, op, checksum, base, content, note)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (proposal, key) DO UPDATE SET op = excluded.op,
			checksum = excluded.checksum, base = excluded.base, content = excluded.content, note = excluded.note`,
			id, c.Key, string(c.Op()), c.Checksum, baseOf(c), c.Content, c.Note); err != nil {
			return 0, false, wrap("save proposed change", err)
		}
	}
	return id, true, nil
}

// sameWhole returns the open whole proposal holding d's changes over its
// base version (see server.ProposalDraft.Whole), 0 when there is none.
// The write transaction is the store's one writer: no other can make one
// meanwhile.
func sameWhole(ctx context.Context, tx *sql.Tx, d server.ProposalDraft) (int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM proposals WHERE repo = ? AND state = 'open' AND whole = 1
		AND base_version = ? ORDER BY id DESC LIMIT ?`, d.Repo, d.BaseVersion, server.MaxSameWhole)
	if err != nil {
		return 0, wrap("find the same proposal", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, wrap("find the same proposal", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, wrap("find the same proposal", err)
	}
	return server.SameProposal(ids, d.Changes, func(id int64) ([]server.ProposedChange, error) { return readChanges(ctx, tx, id) })
}

func baseOf(c server.ProposedChange) sql.NullString {
	return sql.NullString{String: c.Base, Valid: !c.BaseAbsent}
}

// querier is what reads run on: the read pool or a write transaction.
type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func readChanges(ctx context.Context, q querier, id int64) ([]server.ProposedChange, error) {
	rows, err := q.QueryContext(ctx, `SELECT key, op, checksum, base, content, note FROM proposal_changes WHERE proposal = ? ORDER BY key`, id)
	if err != nil {
		return nil, wrap("read proposed changes", err)
	}
	defer rows.Close()
	var out []server.ProposedChange
	for rows.Next() {
		var c server.ProposedChange
		var op string
		var base sql.NullString
		if err := rows.Scan(&c.Key, &op, &c.Checksum, &base, &c.Content, &c.Note); err != nil {
			return nil, wrap("read proposed changes", err)
		}
		c.Delete, c.Base, c.BaseAbsent = op == string(server.OpDelete), base.String, !base.Valid
		out = append(out, c)
	}
	return out, wrap("read proposed changes", rows.Err())
}

// Proposal returns one proposal with its changes (server.ReviewStore).
func (db *DB) Proposal(ctx context.Context, id int64) (server.Proposal, error) {
	return readProposal(ctx, db.read, id)
}

func readProposal(ctx context.Context, q querier, id int64) (server.Proposal, error) {
	p, err := scanProposal(q.QueryRowContext(ctx, `SELECT `+writeplan.ProposalColumns+` FROM proposals WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return server.Proposal{}, server.ErrNotFound
	}
	if err != nil {
		return server.Proposal{}, wrap("read proposal", err)
	}
	p.Changes, err = readChanges(ctx, q, id)
	return p, err
}

type scanner interface{ Scan(dest ...any) error }

func scanProposal(row scanner) (server.Proposal, error) {
	var p server.Proposal
	var state, prov string
	var created, updated, decided int64
	err := row.Scan(&p.ID, &p.Repo, &state, &p.Author, &prov, &p.BaseVersion, &created, &updated,
		&p.DecidedBy, &decided, &p.Comment, &p.AppliedVersion)
	if err != nil {
		return p, err
	}
	p.State, p.CreatedAt, p.UpdatedAt = server.ProposalState(state), fromMicros(created), fromMicros(updated)
	if decided != 0 {
		p.DecidedAt = fromMicros(decided)
	}
	return p, json.Unmarshal([]byte(prov), &p.Provenance)
}

// Proposals lists the proposals q selects, newest first, with their keys
// (server.ReviewStore).
func (db *DB) Proposals(ctx context.Context, q server.ProposalQuery) ([]server.Proposal, error) {
	where, args := []string{"1"}, []any{}
	add := func(cond string, a ...any) { where, args = append(where, cond), append(args, a...) }
	if q.Repo != "" {
		add("repo = ?", q.Repo)
	}
	if q.State != "" {
		add("state = ?", string(q.State))
	}
	if q.Author != "" {
		add("author = ?", q.Author)
	}
	if q.Before > 0 {
		add("id < ?", q.Before)
	}
	if pre := prefixCondition(q.Prefixes); pre != "" {
		add(pre, prefixArgs(q.Prefixes)...)
	}
	rows, err := db.read.QueryContext(ctx, `SELECT `+writeplan.ProposalColumns+` FROM proposals WHERE `+strings.Join(where, " AND ")+
		` ORDER BY id DESC LIMIT ?`, append(args, q.Limit)...)
	if err != nil {
		return nil, wrap("list proposals", err)
	}
	defer rows.Close()
	var out []server.Proposal
	for rows.Next() {
		p, err := scanProposal(rows)
		if err != nil {
			return nil, wrap("list proposals", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("list proposals", err)
	}
	return out, db.proposalKeys(ctx, out)
}

// prefixCondition keeps the repositories under one of prefixes; "" keeps
// every one (no prefix, or the empty one).
func prefixCondition(prefixes []string) string {
	var conds []string
	for _, p := range prefixes {
		if p == "" {
			return ""
		}
		conds = append(conds, "substr(repo, 1, ?) = ?")
	}
	if len(conds) == 0 {
		return ""
	}
	return "(" + strings.Join(conds, " OR ") + ")"
}

func prefixArgs(prefixes []string) []any {
	var args []any
	for _, p := range prefixes {
		args = append(args, len(p), p)
	}
	return args
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
	list, _ := json.Marshal(ids)
	rows, err := db.read.QueryContext(ctx, `SELECT proposal, key, op, checksum FROM proposal_changes
		WHERE proposal IN (SELECT value FROM json_each(?)) ORDER BY proposal, key`, string(list))
	if err != nil {
		return wrap("list proposed keys", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var c server.ProposedChange
		var op string
		if err := rows.Scan(&id, &c.Key, &op, &c.Checksum); err != nil {
			return wrap("list proposed keys", err)
		}
		c.Delete = op == string(server.OpDelete)
		props[index[id]].Changes = append(props[index[id]].Changes, c)
	}
	return wrap("list proposed keys", rows.Err())
}

// OpenProposals counts each repository's open proposals
// (server.ReviewStore).
func (db *DB) OpenProposals(ctx context.Context) (map[string]int, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT repo, count(*) FROM proposals WHERE state = 'open' GROUP BY repo`)
	if err != nil {
		return nil, wrap("count open proposals", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var repo string
		var n int
		if err := rows.Scan(&repo, &n); err != nil {
			return nil, wrap("count open proposals", err)
		}
		out[repo] = n
	}
	return out, wrap("count open proposals", rows.Err())
}

// DecideProposal moves a proposal from d.From to d.To (server.ReviewStore).
func (db *DB) DecideProposal(ctx context.Context, d server.ProposalDecision) (server.Proposal, error) {
	var at int64
	if !d.At.IsZero() {
		at = micros(d.At)
	}
	var p server.Proposal
	by := server.AuditActorFrom(ctx) // the job runs in the writer's context
	err := db.execBatch(ctx, "decide proposal", func(ctx context.Context, b *batch) error {
		tx := b.tx
		res, err := tx.ExecContext(ctx, `UPDATE proposals SET state = ?, decided_by = ?, decided_at = ?, comment = ?,
			applied_version = ? WHERE id = ? AND state = ?`, string(d.To), d.By, at, d.Comment, d.AppliedVersion, d.ID, string(d.From))
		if err != nil {
			return wrap("decide proposal", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return wrap("decide proposal", err)
		}
		if p, err = readProposal(ctx, tx, d.ID); err != nil {
			return err
		}
		if n == 0 {
			return &server.ProposalStateError{ID: d.ID, State: p.State}
		}
		if rec, ok := server.AuditRecordOfDecision(by, d, p); ok {
			return b.audit.append(ctx, []server.AuditRecord{rec})
		}
		return nil
	})
	return p, err
}
