// Command teammem-server is the organization's team memory server
// (spec/protocol.md, spec/cli.md). main is wiring only: run parses the
// command line and calls the subcommand, so tests can start the real server.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/teammem/teammem/internal/buildinfo"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// env is what the program reads from the outside world.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
}

func main() {
	tuneGC(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	err := run(ctx, os.Args[1:], e)
	os.Exit(exitCode(e.stderr, err))
}

// serverGCPercent is the collector's target when GOGC is not set: the
// server's live heap is small (tens of MB) and its allocation rate high, so
// the default of 100 spends a large share of CPU collecting. Idle memory
// is unaffected; GOGC and GOMEMLIMIT still win when set.
const serverGCPercent = 400

// tuneGC applies serverGCPercent unless the environment sets GOGC.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
}

// usageError marks a command-line mistake (exit code 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// exitCode prints err as one sentence and maps it to cli.md's exit codes.
func exitCode(stderr io.Writer, err error) int {
	var ue usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "teammem-server: %v\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "teammem-server: %v\n", err)
		return 1
	}
}

const usage = `Usage: teammem-server [command] [flags]

Commands:
  serve               run the server (the default)
  token create        print a new signed token (its id on stderr) and record it
  token list          print the recorded tokens (id, subject, grants, times, state)
  token revoke        revoke a token (--id) or a subject's tokens (--subject --before)
  token list-revoked  print the recorded revocations
  personal delete     erase a subject's personal memory (--subject S --yes), audited
  policy set          set a repository's review policy (--repo SLUG --review off|changes|all), audited
  policy show         print a repository's review policy (--repo SLUG)
  audit verify        check the audit log's hash chains and signed checkpoints
  audit export        print the audit log as JSON lines (--since TIME)
  audit served        which version a subject was served at a time (--subject --repo --at)
  migrate             apply, roll back or report database migrations (up | down N | version)
  healthcheck         exit 0 when the local server is ready (for container probes)
  backup              write an online, consistent copy of the embedded store (--to FILE)
  tidy                propose a repository's tidy for an admin's review (--repo SLUG), or print its plan (--dry-run)
  upkeep              print or set a repository's upkeep settings (--repo SLUG --unused-days N --daily-tidy)
  version             print the version (also --version)

Run 'teammem-server <command> --help' for a command's flags.
`

// run dispatches to a subcommand; a bare invocation serves.
func run(ctx context.Context, args []string, e env) error {
	if len(args) == 0 {
		return runServe(ctx, args, e)
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], e)
	case "token":
		return runToken(ctx, args[1:], e)
	case "personal":
		return runPersonal(ctx, args[1:], e)
	case "policy":
		return runPolicy(ctx, args[1:], e)
	case "audit":
		return runAudit(ctx, args[1:], e)
	case "migrate":
		return runMigrate(ctx, args[1:], e)
	case "healthcheck":
		return runHealthcheck(ctx, args[1:], e)
	case "backup":
		return runBackup(ctx, args[1:], e)
	case "tidy":
		return runTidy(ctx, args[1:], e)
	case "upkeep":
		return runUpkeep(ctx, args[1:], e)
	case "version", "--version", "-version":
		fmt.Fprintf(e.stdout, "teammem-server %s\n", buildinfo.Version(version))
		return nil
	case "-h", "--help", "help":
		fmt.Fprint(e.stdout, usage)
		return nil
	}
	if len(args[0]) > 0 && args[0][0] == '-' { // flags only: serve
		return runServe(ctx, args, e)
	}
	return usageError{fmt.Errorf("unknown command %q (see teammem-server --help)", args[0])}
}
