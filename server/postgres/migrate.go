package postgres

import (
	"context"

	mpgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/teammem/teammem/migrations"
)

// Migrate runs a migration command on the database at url: cmd is
// migrations.Up (all pending, or at most n when n > 0), migrations.Down
// (roll back n, in one transaction; see migrations.RollBack) or migrations.Version (change nothing). It returns the
// resulting schema version and whether it is dirty. golang-migrate's pgx/v5
// driver takes an advisory lock, so replicas starting together migrate
// once. The URL's pool settings (pool_max_conns, ...) are the store's
// pool's, not sent to the server.
func Migrate(ctx context.Context, url, cmd string, n int) (version uint, dirty bool, err error) {
	cfg, err := poolConfig(url, Options{})
	if err != nil {
		return 0, false, err
	}
	sqlDB := stdlib.OpenDB(*cfg.ConnConfig)
	if err := sqlDB.PingContext(ctx); err != nil {
		_ = sqlDB.Close()
		return 0, false, wrap("connect to postgres for migration", err)
	}
	if cmd == migrations.Down {
		defer sqlDB.Close()
		v, err := migrations.RollBack(ctx, sqlDB, migrations.Postgres, n)
		return v, false, wrap("roll back postgres schema", err)
	}
	drv, err := mpgx.WithInstance(sqlDB, &mpgx.Config{})
	if err != nil {
		_ = sqlDB.Close()
		return 0, false, wrap("start postgres migration", err)
	}
	return migrations.Run(drv, "postgres", migrations.Postgres, cmd, n)
}
