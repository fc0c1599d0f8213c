package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/httpapi"
	"github.com/teammem/teammem/testkit/servertest"
)

// seedRepo fills acme/bench with n entries of 2 KB.
func seedRepo(b *testing.B, ts *testServer, n int) {
	b.Helper()
	content := strings.Repeat("lorem ipsum dolor sit amet ", 76)[:2048]
	for start := 0; start < n; start += 80 {
		entries := map[string]string{}
		for i := start; i < min(n, start+80); i++ {
			entries[fmt.Sprintf("topics/entry-%04d.md", i)] = content
		}
		body, _ := json.Marshal(api.PutRequest{Entries: entries})
		req, _ := http.NewRequest(http.MethodPut, ts.URL+api.PathTeamMemory+"?repo=acme/bench", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+ts.Admin)
		resp, err := ts.Client.Do(req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("seed: %v %v", err, resp)
		}
		resp.Body.Close()
	}
}

func benchGet(b *testing.B, entries int, query string, header ...string) {
	ts := newTestServer(&testing.T{}, servertest.Options{})
	seedRepo(b, ts, entries)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodGet, ts.URL+api.PathTeamMemory+"?repo=acme/bench"+query, nil)
			req.Header.Set("Authorization", "Bearer "+ts.Admin)
			for i := 0; i+1 < len(header); i += 2 {
				req.Header.Set(header[i], header[i+1])
			}
			resp, err := ts.Client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

func BenchmarkGetFull20(b *testing.B)     { benchGet(b, 20, "") }
func BenchmarkGetHashes1000(b *testing.B) { benchGet(b, 1000, "&view=hashes") }
func BenchmarkGet304At1000(b *testing.B)  { benchGet(b, 1000, "", "If-None-Match", "*") }

func BenchmarkPut20(b *testing.B) {
	ts := newTestServer(&testing.T{}, servertest.Options{})
	seedRepo(b, ts, 20)
	content := strings.Repeat("lorem ipsum dolor sit amet ", 76)[:2048]
	var n atomic.Int64
	b.SetParallelism(8) // 16 concurrent clients on 2 CPUs, as the load generator runs
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			body := fmt.Sprintf(`{"entries":{"topics/entry-%04d.md":%q}}`, i%20, fmt.Sprint(i)+content)
			req, _ := http.NewRequest(http.MethodPut, ts.URL+api.PathTeamMemory+"?repo=acme/bench", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+ts.Admin)
			resp, err := ts.Client.Do(req)
			if err != nil || resp.StatusCode != 200 {
				b.Fatal(err, resp.StatusCode)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

// BenchmarkPutInvalidContent pushes one PUT of N entries whose content is
// not UTF-8 ("\xff"), through the real server: at the default entry limit
// (1,000) and with the limit raised above N, where every entry is decoded,
// checked and listed as skipped. The cost must grow linearly with N.
func BenchmarkPutInvalidContent(b *testing.B) {
	for _, n := range []int{1000, 10000, 40000} {
		for _, limit := range []int{0, 200000} {
			b.Run(fmt.Sprintf("entries=%d/max=%d", n, limit), func(b *testing.B) {
				ts := newTestServer(&testing.T{}, servertest.Options{Limits: server.Limits{MaxEntries: limit}})
				body := httpapi.InvalidContentBody(n)
				b.SetBytes(int64(len(body)))
				b.ResetTimer()
				for b.Loop() {
					req, _ := http.NewRequest(http.MethodPut, ts.URL+api.PathTeamMemory+"?repo=acme/bench", bytes.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+ts.Admin)
					resp, err := ts.Client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					size, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					b.ReportMetric(float64(size), "answer-bytes")
					b.ReportMetric(float64(resp.StatusCode), "status")
				}
			})
		}
	}
}
