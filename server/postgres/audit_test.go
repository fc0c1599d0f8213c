package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/storetest"
	"github.com/teammem/teammem/testkit/pgtest"
)

func TestAuditChain(t *testing.T) {
	base := pgtest.URL(t)
	storetest.AuditChain(t, func(t *testing.T) (storetest.AuditStore, storetest.Intruder) {
		url := freshURL(t, base)
		db := open(t, url, postgres.Options{Migrate: true})
		raw, err := pgxpool.New(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(raw.Close)
		return db, intruder{raw}
	})
}

// TestAuditTwoReplicas: two servers on one database write one repository
// and the server's chain at once; each chain holds every record, in one
// line.
func TestAuditTwoReplicas(t *testing.T) {
	url := freshURL(t, pgtest.URL(t))
	a := open(t, url, postgres.Options{Migrate: true})
	b := open(t, url, postgres.Options{})
	storetest.ConcurrentAudit(t, a, b)
}

// intruder edits the audit tables through a pool of its own.
type intruder struct{ db *pgxpool.Pool }

func (in intruder) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	tag, err := in.db.Exec(context.Background(), q, args...)
	if err != nil {
		t.Fatal(err)
	}
	if tag.RowsAffected() != 1 {
		t.Fatalf("%s changed %d rows; want 1", q, tag.RowsAffected())
	}
}

func (in intruder) SetEntry(t *testing.T, chain string, seq int64, body, prev, hash []byte) {
	in.exec(t, `UPDATE audit_log SET body = $1, prev = $2, hash = $3 WHERE chain = $4 AND seq = $5`, body, prev, hash, chain, seq)
}

func (in intruder) MoveEntry(t *testing.T, chain string, from, to int64) {
	in.exec(t, `UPDATE audit_log SET seq = $1 WHERE chain = $2 AND seq = $3`, to, chain, from)
}

func (in intruder) DeleteEntry(t *testing.T, chain string, seq int64) {
	in.exec(t, `DELETE FROM audit_log WHERE chain = $1 AND seq = $2`, chain, seq)
}

func (in intruder) SetHead(t *testing.T, chain string, seq int64, hash []byte) {
	in.exec(t, `UPDATE audit_heads SET seq = $1, hash = $2 WHERE chain = $3`, seq, hash, chain)
}

func TestServedRecords(t *testing.T) {
	storetest.ServedRecords(t, open(t, freshURL(t, pgtest.URL(t)), postgres.Options{Migrate: true}))
}
