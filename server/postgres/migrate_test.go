package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/teammem/teammem/internal/pgtest"
	"github.com/teammem/teammem/migrations"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/storetest"
)

func TestMigrate(t *testing.T) {
	ctx := context.Background()
	url := freshURL(t, pgtest.URL(t))
	if _, err := postgres.Open(ctx, url, postgres.Options{}); !errors.Is(err, migrations.ErrSchemaMismatch) {
		t.Fatalf("Open without Migrate on an empty database = %v; want ErrSchemaMismatch", err)
	}
	latest, _ := migrations.Latest(migrations.Postgres)
	storetest.Migrate(t, latest, func(ctx context.Context, cmd string, n int) (uint, bool, error) {
		return postgres.Migrate(ctx, url, cmd, n)
	})
	if err := open(t, url, postgres.Options{}).Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
}
