package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/teammem/teammem/internal/cliflags"
)

// flagSet is a flag set with its --help text.
type flagSet struct {
	*flag.FlagSet
	usage func()
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name, synopsis string, out io.Writer) flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned and printed once by main
	fs.Usage = func() {}
	return flagSet{FlagSet: fs, usage: func() {
		fmt.Fprintf(out, "Usage: %s\n\nFlags (each also read from its environment twin, e.g. --data-dir ↔ TEAMMEM_DATA_DIR; flags win):\n", synopsis)
		fs.SetOutput(out)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}}
}

// parseFlags parses args, then fills every flag not given on the command
// line from its environment twin (cliflags.EnvName). It returns errHelp for --help and a usageError otherwise.
func parseFlags(fs flagSet, args []string, getenv func(string) string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.usage()
			return errHelp
		}
		return usageError{err}
	}
	if err := cliflags.ApplyEnv(fs.FlagSet, getenv); err != nil {
		return usageError{err}
	}
	return nil
}

// errHelp is returned after --help printed the usage (exit 0).
var errHelp = errors.New("help requested")
