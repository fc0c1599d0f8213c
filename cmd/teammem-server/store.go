package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/events"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/sqlite"
)

// embeddedDBName is the embedded store's file in the data directory.
const embeddedDBName = "teammem.db"

// openStore opens Postgres when a database URL is given, else the embedded
// store, with the broker that carries change notices between the servers
// sharing it (LISTEN/NOTIFY; none for the embedded store, which one
// process owns). Migrations: applied at start for the embedded store
// unless --no-migrate; for Postgres only with --migrate (else pending
// migrations refuse the start).
func openStore(ctx context.Context, c serveConfig, log *slog.Logger) (server.Store, server.Broker, error) {
	if c.databaseURL != "" {
		db, err := postgres.Open(ctx, c.databaseURL, postgres.Options{Migrate: c.migrate})
		if err != nil {
			return nil, nil, fmt.Errorf("open postgres store: %w", err)
		}
		log.Info("store: postgres", "migrate", c.migrate)
		return db, db.NewBroker(log), nil
	}
	path := dataPath(c, embeddedDBName)
	db, err := sqlite.Open(ctx, path, sqlite.Options{Migrate: !c.noMigrate, SyncEachCommit: c.syncEachCommit})
	if err != nil {
		return nil, nil, fmt.Errorf("open embedded store: %w", err)
	}
	log.Info("store: embedded", "path", path, "sync_each_commit", c.syncEachCommit)
	return db, events.LocalBroker{}, nil
}
