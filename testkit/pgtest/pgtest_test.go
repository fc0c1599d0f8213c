package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/teammem/teammem/testkit/pgtest"
)

func TestURLGivesAnEmptyDatabase(t *testing.T) {
	ctx := context.Background()
	var first string
	t.Run("create", func(t *testing.T) {
		first = pgtest.URL(t)
		conn, err := pgx.Connect(ctx, first)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var tables int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&tables); err != nil || tables != 0 {
			t.Errorf("new database has %d tables, %v; want 0", tables, err)
		}
		if second := pgtest.URL(t); second == first {
			t.Errorf("two calls gave the same database %s", first)
		}
	})
	if first == "" {
		return
	}
	if conn, err := pgx.Connect(ctx, first); err == nil {
		conn.Close(ctx)
		t.Errorf("database %s still exists after its test ended", first)
	}
}
