package postgres_test

import (
	"testing"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/storetest"
	"github.com/teammem/teammem/testkit/pgtest"
)

func BenchmarkStore(b *testing.B) {
	base := pgtest.URL(b)
	storetest.Benchmarks(b, func(b *testing.B) server.Store {
		return open(b, freshURL(b, base), postgres.Options{Migrate: true})
	})
}
