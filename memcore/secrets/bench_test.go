package secrets

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func BenchmarkScan16K(b *testing.B) { benchmarkScan(b, 16<<10) }
func BenchmarkScan64K(b *testing.B) { benchmarkScan(b, 64<<10) }

// benchmarkScan scans ordinary Markdown (the clean corpus: prose, tables,
// code fences, hashes, base64) of the given size, clean and with one secret
// near the end.
func benchmarkScan(b *testing.B, size int) {
	clean := markdownOfSize(b, size)
	r := rand.New(rand.NewPCG(7, 7))
	withSecret := plantNearEnd(clean, "Pasted by mistake: "+generators["github-pat"](r))
	withPEM := plantNearEnd(clean, generators["private-key"](r))
	for _, bc := range []struct {
		name, doc string
		want      int
	}{{"prose", clean, 0}, {"secret-near-end", withSecret, 1}, {"pem-near-end", withPEM, 1}} {
		b.Run(bc.name, func(b *testing.B) {
			if n := len(Scan(bc.doc)); n != bc.want {
				b.Fatalf("Scan found %d matches, want %d", n, bc.want)
			}
			b.SetBytes(int64(len(bc.doc)))
			b.ReportAllocs()
			for b.Loop() {
				Scan(bc.doc)
			}
		})
	}
}

// markdownOfSize concatenates the clean corpus, in name order, until size
// bytes, cut at a line end.
func markdownOfSize(b testing.TB, size int) string {
	corpus := cleanCorpus(b)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range corpus {
			if !yield(n) {
				return
			}
		}
	})
	var sb strings.Builder
	for sb.Len() < size {
		for _, n := range names {
			sb.WriteString(corpus[n] + "\n")
		}
	}
	s := sb.String()[:size]
	return s[:strings.LastIndexByte(s, '\n')+1]
}

// plantNearEnd inserts text as its own lines about 20 lines before the end.
func plantNearEnd(doc, text string) string {
	ls := strings.Split(doc, "\n")
	at := max(0, len(ls)-20)
	return strings.Join(slices.Insert(ls, at, text), "\n")
}
