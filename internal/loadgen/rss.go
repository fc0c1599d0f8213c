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

// ReadRSS returns the resident set size of process pid, from the VmRSS line
// of /proc/<pid>/status.
func ReadRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read rss: %w", err)
	}
	defer f.Close()
	return parseVmRSS(f)
}

func parseVmRSS(f *os.File) (int64, error) {
	s := bufio.NewScanner(f)
	for s.Scan() {
		rest, ok := strings.CutPrefix(s.Text(), "VmRSS:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read rss: %w", err)
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("read rss: no VmRSS line in %s", f.Name())
}

// rssSampler records the highest RSS of a process until stopped.
type rssSampler struct {
	pid  int
	peak int64
	wg   sync.WaitGroup
	stop context.CancelFunc
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
	if v, err := ReadRSS(s.pid); err == nil && v > s.peak {
		s.peak = v
	}
}

// finish stops sampling and returns the last and the peak RSS.
func (s *rssSampler) finish() (last, peak int64, err error) {
	if s.pid <= 0 {
		return 0, 0, nil
	}
	s.stop()
	s.wg.Wait()
	last, err = ReadRSS(s.pid)
	return last, max(last, s.peak), err
}
