//go:build !unix

package memcore

import "testing"

// reportCPU is a no-op where getrusage is unavailable.
func reportCPU(*testing.B) func() { return func() {} }
