//go:build windows

package memcore

const defaultManagedDir = `C:\Program Files\ClaudeCode`
