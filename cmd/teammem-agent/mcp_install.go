package main

import (
	"context"
)

// runMCPInstall is `teammem-agent mcp install|uninstall`.
func runMCPInstall(ctx context.Context, e *cliEnv, verb string, args []string) error {
	return errUsage("mcp %s: not yet", verb)
}
