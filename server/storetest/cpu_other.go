//go:build !unix

package storetest

import "testing"

// measureCPU measures nothing where getrusage is missing.
func measureCPU(*testing.B) func() { return func() {} }
