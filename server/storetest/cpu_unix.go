//go:build unix

package storetest

import (
	"syscall"
	"testing"
	"time"
)

// measureCPU starts measuring the CPU time (user and system) the whole
// process spends; the function it returns reports it per iteration as
// cpu-ns/op. Unlike ns/op it counts the store's own goroutines and threads
// and does not grow with what else runs on the machine.
func measureCPU(b *testing.B) (report func()) {
	start := processCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
