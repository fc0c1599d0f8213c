package main

import (
	"bytes"
	"log/slog"
	"math"
	"runtime/debug"
	"strings"
	"testing"
)

func TestMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	env := func(gomemlimit string) func(string) string {
		return func(k string) string {
			if k == "GOMEMLIMIT" {
				return gomemlimit
			}
			return ""
		}
	}
	cgroup := func(n int64) func() (int64, error) { return func() (int64, error) { return n, nil } }
	cases := []struct {
		flag, gomemlimit string
		cgroup           int64
		want             int64
		from             string
	}{
		{"auto", "", 512 * mib, 384 * mib, "3/4 of the cgroup memory limit of 512 MiB"},
		{"", "", 0, 0, ""},
		{"auto", "1GiB", 512 * mib, 0, "GOMEMLIMIT"},
		{"300MiB", "1GiB", 512 * mib, 300 * mib, "--memory-limit"},
		{"off", "", 512 * mib, math.MaxInt64, "--memory-limit"},
		{"1073741824", "", 0, 1 << 30, "--memory-limit"},
		{"2GiB", "", 0, 2 << 30, "--memory-limit"},
		{"64KiB", "", 0, 64 << 10, "--memory-limit"},
		{"100B", "", 0, 100, "--memory-limit"},
	}
	for _, c := range cases {
		got, from, err := memoryLimit(c.flag, env(c.gomemlimit), cgroup(c.cgroup))
		if err != nil || got != c.want || from != c.from {
			t.Errorf("memoryLimit(%q, GOMEMLIMIT=%q, cgroup %d) = %d, %q, %v; want %d, %q", c.flag, c.gomemlimit, c.cgroup, got, from, err, c.want, c.from)
		}
	}
	for _, bad := range []string{"3x", "-1MiB", "0", "MiB", "1.5GiB", "9999999TiB", "512mib"} {
		if _, _, err := parseMemoryFlag(bad); err == nil {
			t.Errorf("--memory-limit %q accepted", bad)
		}
	}
}

// TestApplyMemoryLimit: --memory-limit sets the runtime's soft limit, over
// GOMEMLIMIT, and the log says so.
func TestApplyMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	applyMemoryLimit("300MiB", func(k string) string {
		if k == "GOMEMLIMIT" {
			return "1GiB"
		}
		return ""
	}, log)
	if got := debug.SetMemoryLimit(-1); got != 300<<20 {
		t.Errorf("runtime memory limit %d, want %d", got, 300<<20)
	}
	if !strings.Contains(logs.String(), "memory limit 300 MiB (--memory-limit)") {
		t.Errorf("log: %s", logs.String())
	}
}
