package loadgen

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Result is what one run (or, from Suite, the median of several) measured.
type Result struct {
	Scenario    string         `json:"scenario"`
	Repo        string         `json:"repo"`
	Entries     int            `json:"entries"`
	Concurrency int            `json:"concurrency"`
	Runs        int            `json:"runs"`
	Requests    int            `json:"requests"`
	Errors      map[string]int `json:"errors"` // status code (or "transport") → count
	Seconds     float64        `json:"seconds"`
	RPS         float64        `json:"rps"`
	P50ms       float64        `json:"p50_ms"`
	P99ms       float64        `json:"p99_ms"`
	RSSBytes    int64          `json:"rss_bytes,omitempty"`      // at the end; 0 without ServerPID
	RSSPeak     int64          `json:"rss_peak_bytes,omitempty"` // highest sample during the run
	RSSFile     int64          `json:"rss_file_bytes,omitempty"` // of RSSBytes, the pages of mapped files (see Memory)
	// CPUms is the server's CPU time (user and system) per request, or
	// for cas per acknowledged write (its hashes probes and 412s
	// included), in milliseconds; 0 without ServerPID. Its resolution is
	// 10 ms over the whole run.
	CPUms float64 `json:"server_cpu_ms_per_op,omitempty"`
	// cas only.
	Acknowledged int `json:"acknowledged,omitempty"` // writes answered 200
	Conflicts    int `json:"conflicts,omitempty"`    // 412 answers, each retried
	LostUpdates  int `json:"lost_updates"`           // acknowledged writes missing at the end
}

// setCPU sets CPUms from the server CPU time used during the run.
func (r *Result) setCPU(used time.Duration) {
	ops := r.Requests
	if r.Scenario == CAS {
		ops = r.Acknowledged
	}
	if ops > 0 {
		r.CPUms = ms(used) / float64(ops)
	}
}

// ErrorCount is the number of failed requests.
func (r Result) ErrorCount() int {
	n := 0
	for _, v := range r.Errors {
		n += v
	}
	return n
}

// OK reports whether the run had no failed request and lost no update.
func (r Result) OK() bool { return r.ErrorCount() == 0 && r.LostUpdates == 0 }

// String is the one-line human report.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s entries=%-4d c=%-3d %7d req in %5.1fs %9.1f req/s  p50 %7.2fms  p99 %7.2fms",
		r.Scenario, r.Entries, r.Concurrency, r.Requests, r.Seconds, r.RPS, r.P50ms, r.P99ms)
	if r.Runs > 1 {
		fmt.Fprintf(&b, "  (median of %d)", r.Runs)
	}
	b.WriteString("  errors: " + r.errorSummary())
	if r.Scenario == CAS {
		fmt.Fprintf(&b, "  acked %d, 412 %d, lost %d", r.Acknowledged, r.Conflicts, r.LostUpdates)
	}
	if r.CPUms > 0 {
		unit := "req"
		if r.Scenario == CAS {
			unit = "write"
		}
		fmt.Fprintf(&b, "  cpu %.3f ms/%s", r.CPUms, unit)
	}
	if r.RSSBytes > 0 {
		fmt.Fprintf(&b, "  rss %.1f MiB (peak %.1f; mapped files %.1f)", mib(r.RSSBytes), mib(r.RSSPeak), mib(r.RSSFile))
	}
	return b.String()
}

func (r Result) errorSummary() string {
	if len(r.Errors) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r.Errors)) {
		parts = append(parts, fmt.Sprintf("%s×%d", k, r.Errors[k]))
	}
	return strings.Join(parts, " ")
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// percentile returns the nearest-rank p-th percentile (0 < p ≤ 1) of sorted.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
