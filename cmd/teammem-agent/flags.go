package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
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
		fmt.Fprintln(out, "Flags (each also read from its environment twin TEAMMEM_<NAME>, e.g. --state-dir ↔ TEAMMEM_STATE_DIR; flags win):")
		fs.SetOutput(out)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
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
// environment twin, when that is non-empty.
func applyEnv(fs *flag.FlagSet, getenv func(string) string) error {
	if getenv == nil {
		return nil
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var firstErr error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || firstErr != nil {
			return
		}
		name := envName(f.Name)
		if v := getenv(name); v != "" {
			if err := f.Value.Set(v); err != nil {
				firstErr = errUsage("%s: environment %s=%q: %v", fs.Name(), name, v, err)
			}
		}
	})
	return firstErr
}

// envName is the environment twin of a flag: --state-dir → TEAMMEM_STATE_DIR.
func envName(flagName string) string {
	return "TEAMMEM_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// helpOK turns errHelp into success, so that `cmd --help` exits 0.
func helpOK(err error) error {
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}
