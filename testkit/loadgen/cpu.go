package loadgen

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// userHZ is the unit of the CPU times of /proc/PID/stat: Linux reports
// them in USER_HZ ticks, 100 per second on every architecture it exports
// to user space.
const userHZ = 100

// ReadCPU returns the CPU time (user and system, every thread, exited
// ones included) process pid has used so far, from /proc/<pid>/stat; its
// resolution is one tick, 10 ms.
func ReadCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read cpu time: %w", err)
	}
	return parseStatCPU(data)
}

// parseStatCPU reads utime and stime, fields 14 and 15 of a stat line (12th
// and 13th after the parenthesised command name, which may hold spaces).
func parseStatCPU(data []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("read cpu time: malformed stat line %q", excerpt(data))
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("read cpu time: short stat line %q", excerpt(data))
	}
	var ticks int64
	for _, field := range f[11:13] { // utime and stime
		n, err := strconv.ParseInt(string(field), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read cpu time: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// cpuMeter measures the CPU time a process uses between startCPU and
// finish; pid ≤ 0 measures nothing.
type cpuMeter struct {
	pid   int
	start time.Duration
	err   error
}

func startCPU(pid int) cpuMeter {
	m := cpuMeter{pid: pid}
	if pid > 0 {
		m.start, m.err = ReadCPU(pid)
	}
	return m
}

// finish returns the CPU time used since startCPU.
func (m cpuMeter) finish() (time.Duration, error) {
	if m.pid <= 0 || m.err != nil {
		return 0, m.err
	}
	now, err := ReadCPU(m.pid)
	return now - m.start, err
}
