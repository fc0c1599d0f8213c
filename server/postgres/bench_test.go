package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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

// BenchmarkServedHour: the served records of 10,000 agents pulling every
// 2 s for an hour, the repository quiet or written every 5 minutes.
func BenchmarkServedHour(b *testing.B) {
	base := pgtest.URL(b)
	for _, every := range []time.Duration{0, 5 * time.Minute} {
		b.Run(fmt.Sprintf("write-every=%v", every), func(b *testing.B) {
			url := freshURL(b, base)
			db := open(b, url, postgres.Options{Migrate: true})
			raw, err := pgx.Connect(context.Background(), url)
			if err != nil {
				b.Fatal(err)
			}
			defer raw.Close(context.Background())
			storetest.BenchServedHour(b, db, every, func() int64 {
				var n int64
				if err := raw.QueryRow(context.Background(), `SELECT pg_total_relation_size('served')`).Scan(&n); err != nil {
					b.Fatal(err)
				}
				return n
			})
		})
	}
}
