package main

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// The Go runtime's soft memory limit (GOMEMLIMIT) is what keeps the heap
// of a server whose collector runs rarely (serverGCPercent) inside its
// container: near the limit the collector runs as often as it must. When
// neither --memory-limit nor GOMEMLIMIT sets it, the server takes
// memoryShare of its cgroup's memory limit, leaving the rest to what the
// runtime does not count: SQLite's page caches (16 MiB per connection of
// the embedded store, outside the Go heap) and the file pages the kernel
// charges to the container. Without a cgroup limit there is none.
const memoryShareNum, memoryShareDen = 3, 4

// parseMemoryFlag parses --memory-limit: "auto" (or empty), "off" (no
// limit: math.MaxInt64, GOMEMLIMIT overridden), or a size in GOMEMLIMIT's
// syntax (bytes, or a number and B, KiB, MiB, GiB or TiB).
func parseMemoryFlag(s string) (limit int64, auto bool, err error) {
	switch s {
	case "", "auto":
		return 0, true, nil
	case "off":
		return math.MaxInt64, false, nil
	}
	num, unit := s, int64(1)
	for _, u := range []struct {
		suffix string
		bytes  int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			num, unit = n, u.bytes
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/unit {
		return 0, false, fmt.Errorf("--memory-limit must be auto, off or a size such as 512MiB, got %q", s)
	}
	return n * unit, false, nil
}

// memoryLimit resolves --memory-limit (already checked by
// parseMemoryFlag): the soft limit to set, 0 to leave the runtime's as it
// is (set by GOMEMLIMIT, or none), and where it comes from. cgroup reads
// the process's cgroup memory limit (0: none).
func memoryLimit(flag string, getenv func(string) string, cgroup func() (int64, error)) (int64, string, error) {
	limit, auto, err := parseMemoryFlag(flag)
	switch {
	case err != nil:
		return 0, "", err
	case !auto:
		return limit, "--memory-limit", nil
	case getenv("GOMEMLIMIT") != "":
		return 0, "GOMEMLIMIT", nil
	}
	group, err := cgroup()
	if err != nil || group == 0 {
		return 0, "", err
	}
	return group / memoryShareDen * memoryShareNum,
		fmt.Sprintf("%d/%d of the cgroup memory limit of %d MiB", memoryShareNum, memoryShareDen, group>>20), nil
}

// applyMemoryLimit sets the runtime's soft memory limit as --memory-limit
// says and logs it. A cgroup limit that cannot be read is logged and no
// limit set.
func applyMemoryLimit(flag string, getenv func(string) string, log *slog.Logger) {
	limit, from, err := memoryLimit(flag, getenv, func() (int64, error) { return cgroupMemoryLimit(os.DirFS("/")) })
	if err != nil {
		log.Warn("no memory limit: "+err.Error(), "error", err.Error())
		return
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	if from == "" {
		from = "no --memory-limit, GOMEMLIMIT or cgroup memory limit"
	}
	if current := debug.SetMemoryLimit(-1); current == math.MaxInt64 {
		log.Info("no memory limit ("+from+")", "from", from)
	} else {
		log.Info(fmt.Sprintf("memory limit %d MiB (%s)", current>>20, from), "bytes", current, "from", from)
	}
}
