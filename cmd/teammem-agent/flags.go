package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/teammem/teammem/internal/cliflags"
)

// errHelp is returned by parseFlags after --help printed the usage; the
// command then exits 0.
var errHelp = errors.New("help requested")

// newFlagSet returns a flag set for one sync subcommand that reports errors
// instead of exiting and prints its usage to out.
func newFlagSet(name, synopsis string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: teammem-agent %s\n\n", synopsis)
		fmt.Fprintf(out, "Flags (each also read from its environment twin TEAMMEM_<NAME>%s; flags win):\n", envExample(fs))
		fs.SetOutput(out)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// envExample is the example of an environment twin a usage gives, for a
// flag the flag set has: --state-dir, else --token-file, else none.
func envExample(fs *flag.FlagSet) string {
	for _, name := range []string{"state-dir", "token-file"} {
		if fs.Lookup(name) != nil {
			return fmt.Sprintf(", e.g. --%s ↔ %s", name, cliflags.EnvName(name))
		}
	}
	return ""
}

// parseFlags parses args, then fills every flag not given on the command
// line from its environment twin (envName). Positional arguments are a
// usage error: no sync subcommand takes any. It returns errHelp after
// printing the usage for -h/--help, a usageError for anything malformed.
func parseFlags(fs *flag.FlagSet, args []string, getenv func(string) string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp // Parse printed the usage
		}
		return errUsage("%s: %v", fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return errUsage("%s: unexpected argument %q (see teammem-agent %s --help)", fs.Name(), fs.Arg(0), fs.Name())
	}
	return applyEnv(fs, getenv)
}

// applyEnv sets every flag that the command line left unset from its
// environment twin (cliflags.ApplyEnv), as a usage error when malformed.
func applyEnv(fs *flag.FlagSet, getenv func(string) string) error {
	if err := cliflags.ApplyEnv(fs, getenv); err != nil {
		return errUsage("%s: %v", fs.Name(), err)
	}
	return nil
}

// helpOK turns errHelp into success, so that `cmd --help` exits 0.
func helpOK(err error) error {
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}
