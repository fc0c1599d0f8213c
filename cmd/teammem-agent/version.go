package main

import (
	"context"
	"fmt"

	"github.com/teammem/teammem/internal/buildinfo"
)

// version is set at build time with -ldflags "-X main.version=..."
// (`make build`); buildinfo falls back to what the toolchain recorded.
var version = "dev"

func init() {
	register(command{Name: "version", Summary: "print the version", Run: runVersion})
}

// runVersion prints "teammem-agent VERSION" (also `teammem-agent --version`).
func runVersion(_ context.Context, e *cliEnv, args []string) error {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" {
			fmt.Fprintln(e.Stdout, "Usage: teammem-agent version")
			return nil
		}
		return errUsage("version takes no arguments, got %q", args[0])
	}
	fmt.Fprintf(e.Stdout, "teammem-agent %s\n", buildinfo.Version(version))
	return nil
}
