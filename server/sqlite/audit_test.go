package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/teammem/teammem/server/sqlite"
	"github.com/teammem/teammem/server/storetest"
)

func TestAuditChain(t *testing.T) {
	storetest.AuditChain(t, func(t *testing.T) (storetest.AuditStore, storetest.Intruder) {
		path := filepath.Join(t.TempDir(), "teammem.db")
		db, err := sqlite.Open(context.Background(), path, sqlite.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = raw.Close() })
		return db, intruder{raw}
	})
}

// TestAuditAt: the command line's view of the file appends and reads the
// same chains as the running store.
func TestAuditAt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "teammem.db")
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	storetest.ConcurrentAuditBeside(t, db, sqlite.AuditAt(path))
}

// intruder edits the audit tables through a connection of its own.
type intruder struct{ db *sql.DB }

func (in intruder) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	res, err := in.db.Exec(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%s changed %d rows; want 1", q, n)
	}
}

func (in intruder) SetEntry(t *testing.T, chain string, seq int64, body, prev, hash []byte) {
	in.exec(t, `UPDATE audit_log SET body = ?, prev = ?, hash = ? WHERE chain = ? AND seq = ?`, body, prev, hash, chain, seq)
}

func (in intruder) MoveEntry(t *testing.T, chain string, from, to int64) {
	in.exec(t, `UPDATE audit_log SET seq = ? WHERE chain = ? AND seq = ?`, to, chain, from)
}

func (in intruder) DeleteEntry(t *testing.T, chain string, seq int64) {
	in.exec(t, `DELETE FROM audit_log WHERE chain = ? AND seq = ?`, chain, seq)
}

func (in intruder) SetHead(t *testing.T, chain string, seq int64, hash []byte) {
	in.exec(t, `UPDATE audit_heads SET seq = ?, hash = ? WHERE chain = ?`, seq, hash, chain)
}

func TestServedRecords(t *testing.T) {
	storetest.ServedRecords(t, open(t))
}
