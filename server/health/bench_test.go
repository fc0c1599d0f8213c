package health_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/health"
	"github.com/teammem/teammem/server/storetest"
)

// benchRepo is a repository of n topics of about size bytes each, of
// words drawn from a vocabulary of 20,000 with Zipf's law (as prose
// is), each topic with a settings line, and the MEMORY.md linking them.
// One topic in 50 is the one before it reworded (a near-duplicate).
func benchRepo(n, size int) map[string]string {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, 19_999)
	files := make(map[string]string, n+1)
	var index strings.Builder
	for i := range n {
		key := fmt.Sprintf("topics/t%05d.md", i)
		var b strings.Builder
		fmt.Fprintf(&b, "---\nname: topic %d\ndescription: lesson %d\ntype: project\n---\n", i, i)
		fmt.Fprintf(&b, "setting_%d: %d\n\n", i%500, i%7)
		for b.Len() < size {
			for w := range 12 {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(word(zipf.Uint64()))
			}
			b.WriteString(".\n")
		}
		files[key] = b.String()
		if i%50 == 1 {
			files[key] = reword(files[fmt.Sprintf("topics/t%05d.md", i-1)], rng)
		}
		fmt.Fprintf(&index, "- [Topic %d](%s) — lesson %d\n", i, key, i)
	}
	files[health.RootIndex] = index.String()
	return files
}

// BenchmarkCheck is the check alone, on a repository read beforehand.
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("topics=%d", n), func(b *testing.B) {
			in := input(kindCase{files: benchRepo(n, 2048)})
			var bytes int64
			for _, e := range in.Topics {
				bytes += int64(len(e.Content))
			}
			b.SetBytes(bytes)
			var r health.Report
			cpu := storetest.MeasureCPU(b)
			for b.Loop() {
				r = health.Check(in)
			}
			cpu()
			c := r.Count()
			b.ReportMetric(float64(c[health.KindNearDuplicate]), "near/op")
			b.ReportMetric(float64(c[health.KindConflictingValues]), "conflicts/op")
		})
	}
}

// word is the n-th word of the vocabulary: letters only, as prose is.
func word(n uint64) string {
	var w []byte
	for {
		w = append(w, byte('a'+n%26))
		n /= 26
		if n == 0 {
			return string(w)
		}
	}
}

// BenchmarkGather is a health check as the server makes one: the
// repository read from the store with its content and its stale reports,
// then checked. cpu-ns/op counts the whole process (the store's reads
// included, Postgres' own processes not).
func BenchmarkGather(b *testing.B) {
	stores(b, b.Run, func(b *testing.B, s server.Store) {
		for _, n := range []int{1000, 5000} {
			repo := fmt.Sprintf("github.com/acme/bench%d", n)
			seedStore(b, s, repo, benchRepo(n, 2048), time.Now())
			svc := server.NewService(s, server.Config{})
			// A search waits for the search index to take the write in,
			// which would otherwise run beside the first iterations.
			if _, err := svc.Search(context.Background(), admin, server.SearchQuery{Text: "topic", Repo: repo}); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("topics=%d", n), func(b *testing.B) {
				cpu := storetest.MeasureCPU(b)
				for b.Loop() {
					if _, err := health.Gather(context.Background(), svc, admin, repo, health.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				cpu()
			})
		}
	})
}

// reword returns content with one word in eight replaced.
func reword(content string, rng *rand.Rand) string {
	words := strings.Split(content, " ")
	for i := range words {
		if rng.IntN(8) == 0 {
			words[i] = "reworded"
		}
	}
	return strings.Join(words, " ")
}
