package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/audit"
)

// ServedAgents and ServedPullEvery are the served-record benchmark's
// fleet: 10,000 agents, each its own subject, pulling one repository
// every 2 seconds.
const (
	ServedAgents    = 10_000
	ServedPullEvery = 2 * time.Second
)

// BenchServedHour serves one virtual hour of the fleet's pulls through a
// replica's audit.Coalescer, flushed every virtual minute onto s, the
// repository moving to a new version every writeEvery (0: never), and
// reports the records the hour leaves (records/hour, and records/day for
// 24 such hours), the bytes they take (size, the served table's bytes,
// after minus before), the store time of a flush and the CPU of one
// serving.
func BenchServedHour(b *testing.B, s server.ServedLog, writeEvery time.Duration, size func() int64) {
	ctx := context.Background()
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for b.Loop() {
		before := size()
		c := audit.NewCoalescer(s, "bench")
		var flushTime time.Duration
		var flushes int
		var servings int64
		for tick := time.Duration(0); tick < time.Hour; tick += ServedPullEvery {
			now := start.Add(tick)
			version := int64(1)
			if writeEvery > 0 {
				version += int64(tick / writeEvery)
			}
			for i := range ServedAgents {
				c.Served(server.Served{Subject: agentName(i), Repo: repo, Version: version, Surface: server.ServedPull, At: now})
			}
			servings += ServedAgents
			if (tick+ServedPullEvery)%time.Minute == 0 {
				t0 := time.Now()
				if err := c.Flush(ctx, now, false); err != nil {
					b.Fatal(err)
				}
				flushTime += time.Since(t0)
				flushes++
			}
		}
		if err := c.Flush(ctx, start.Add(2*time.Hour), false); err != nil {
			b.Fatal(err)
		}
		recs := servedRows(b, s, start)
		b.ReportMetric(float64(recs), "records/hour")
		b.ReportMetric(float64(recs*24), "records/day")
		b.ReportMetric(float64(size()-before)/float64(recs), "bytes/record")
		b.ReportMetric(float64(flushTime.Milliseconds())/float64(flushes), "ms/flush")
		b.ReportMetric(float64(servings), "servings/hour")
		start = start.Add(24 * time.Hour) // the next round's records are new ones
	}
}

func agentName(i int) string { return fmt.Sprintf("agent-%05d", i) }

// servedRows counts the records of the hour from start, by sampling
// every 100th agent.
func servedRows(b *testing.B, s server.ServedLog, start time.Time) int64 {
	var n int64
	for i := 0; i < ServedAgents; i += 100 {
		recs, err := s.ServedBefore(context.Background(), agentName(i), repo, start.Add(time.Hour), 1000)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			if !r.First.Before(start) {
				n++
			}
		}
	}
	return n * 100
}
