package sqlite_test

import (
	"testing"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/storetest"
)

func BenchmarkStore(b *testing.B) {
	storetest.Benchmarks(b, func(b *testing.B) server.Store { return open(b) })
}
