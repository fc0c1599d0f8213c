package httpapi_test

import (
	"crypto/rand"
	"math/big"

	"github.com/teammem/teammem/server"
)

func serverLimits(entries, entryBytes int, body, repo int64) server.Limits {
	return server.Limits{MaxEntries: entries, MaxEntryBytes: entryBytes, MaxBodyBytes: body, MaxRepoBytes: repo}
}

func randomAlnum(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		v, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		b[i] = alphabet[v.Int64()]
	}
	return string(b)
}
