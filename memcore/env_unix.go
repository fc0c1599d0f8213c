//go:build !windows

package memcore

const defaultManagedDir = "/etc/claude-code"
