package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Memory is a process's resident memory, from /proc/<pid>/status.
type Memory struct {
	RSS   int64 // VmRSS: every resident page
	File  int64 // RssFile: those of mapped files (the binary, a database mapped for reading), page cache the kernel may drop and read again
	Anon  int64 // RssAnon: the process's own pages (heap, stacks)
	Shmem int64 // RssShmem: shared memory it mapped
}

// Own is the memory the process holds of its own: RssAnon + RssShmem, RSS
// without the file pages the kernel may drop.
func (m Memory) Own() int64 { return m.Anon + m.Shmem }

// ReadMemory returns the resident memory of process pid.
func ReadMemory(pid int) (Memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, fmt.Errorf("read rss: %w", err)
	}
	defer f.Close()
	return parseStatus(f)
}

func parseStatus(f *os.File) (Memory, error) {
	var m Memory
	var seen int
	s := bufio.NewScanner(f)
	for s.Scan() {
		name, rest, ok := strings.Cut(s.Text(), ":")
		var dst *int64
		switch {
		case !ok:
			continue
		case name == "VmRSS":
			dst = &m.RSS
		case name == "RssFile":
			dst = &m.File
		case name == "RssAnon":
			dst = &m.Anon
		case name == "RssShmem":
			dst = &m.Shmem
		default:
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("read rss: %s: %w", name, err)
		}
		*dst, seen = kb*1024, seen+1
	}
	if err := s.Err(); err != nil {
		return Memory{}, fmt.Errorf("read rss: %w", err)
	}
	if seen < 4 {
		return Memory{}, fmt.Errorf("read rss: no VmRSS, RssFile, RssAnon or RssShmem line in %s", f.Name())
	}
	return m, nil
}

// rssSampler records the highest RSS of a process, and the highest of its
// own memory (Memory.Own), until stopped.
type rssSampler struct {
	pid     int
	peak    int64
	ownPeak int64
	wg      sync.WaitGroup
	stop    context.CancelFunc
}

// startRSS samples pid every interval; pid ≤ 0 samples nothing.
func startRSS(ctx context.Context, pid int, interval time.Duration) *rssSampler {
	s := &rssSampler{pid: pid}
	if pid <= 0 {
		return s
	}
	ctx, s.stop = context.WithCancel(ctx)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *rssSampler) sample() {
	if m, err := ReadMemory(s.pid); err == nil {
		s.peak, s.ownPeak = max(s.peak, m.RSS), max(s.ownPeak, m.Own())
	}
}

// finish stops sampling and returns the last memory read and the peak
// RSS.
func (s *rssSampler) finish() (last Memory, peak int64, err error) {
	if s.pid <= 0 {
		return Memory{}, 0, nil
	}
	s.stop()
	s.wg.Wait()
	last, err = ReadMemory(s.pid)
	return last, max(last.RSS, s.peak), err
}
