package storetest

import "testing"

// MeasureCPU is measureCPU for other packages' benchmarks: the CPU time
// the process spends per iteration, reported as cpu-ns/op when the
// returned function is called.
func MeasureCPU(b *testing.B) (report func()) { return measureCPU(b) }
