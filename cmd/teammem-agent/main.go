// Command teammem-agent keeps a local team memory folder and a teammem server in
// step, and shows the local memory core's views (spec/agent.md, spec/cli.md).
//
// main is wiring only: every subcommand lives in its own file and registers
// itself with register from an init function.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/teammem/teammem/internal/earlysignal"
)

// cliEnv is what a subcommand may read from the outside world. Tests build one
// over temporary folders; main builds it from the process.
type cliEnv struct {
	Stdout io.Writer
	Stderr io.Writer
	Stdin  io.Reader
	Getenv func(string) string
	Cwd    string
	Home   string
	// OpenURL opens a URL in the person's browser (nil: the desktop's).
	OpenURL func(string) error
}

// command is one subcommand.
type command struct {
	Name    string
	Summary string
	// Run executes the subcommand with the arguments after its name.
	Run func(ctx context.Context, e *cliEnv, args []string) error
}

var commands = map[string]command{}

// register adds a subcommand; called from init functions.
func register(c command) {
	if _, dup := commands[c.Name]; dup {
		panic("teammem-agent: duplicate command " + c.Name)
	}
	commands[c.Name] = c
}

// usageError marks errors caused by bad command-line usage (exit code 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// errUsage wraps a message as a usage error.
func errUsage(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitError carries a specific exit code with no further message (for example
// `memory lint` reporting problems with exit 1 after printing them).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	ctx, stop := earlysignal.Context(context.Background()) // caught since the process started
	defer stop()
	cwd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	e := &cliEnv{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin, Getenv: os.Getenv, Cwd: cwd, Home: home}
	os.Exit(exitCode(e, run(ctx, e, os.Args[1:])))
}

// exitCode prints err (one sentence on stderr) and maps it to the exit code of
// cli.md: 0 ok, 1 failure, 2 usage error.
func exitCode(e *cliEnv, err error) int {
	var ee exitError
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(e.Stderr, "teammem-agent: %v\n", err)
		return 2
	default:
		fmt.Fprintf(e.Stderr, "teammem-agent: %v\n", err)
		return 1
	}
}

// run dispatches to a subcommand.
func run(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) == 2 && args[0] == "help" { // help CMD is CMD --help
		args = []string{args[1], "--help"}
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(e.Stdout)
		if len(args) == 0 {
			return usageError{errors.New("a command is required")}
		}
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(ctx, e, args[1:])
	}
	c, ok := commands[args[0]]
	if !ok {
		return errUsage("unknown command %q (see teammem-agent --help)", args[0])
	}
	return c.Run(ctx, e, args[1:])
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: teammem-agent <command> [flags]")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, commands[n].Summary)
	}
	fmt.Fprintln(w, "\nRun 'teammem-agent help <command>' (or '<command> --help') for a command's flags.")
}
