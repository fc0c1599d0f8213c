package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
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
// line from its environment twin TEAMMEM_<NAME> (dashes become
// underscores). It returns errHelp for --help and a usageError otherwise.
func parseFlags(fs flagSet, args []string, getenv func(string) string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.usage()
			return errHelp
		}
		return usageError{err}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var firstErr error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || firstErr != nil {
			return
		}
		name := envName(f.Name)
		v := getenv(name)
		if v == "" {
			return
		}
		if err := setFromEnv(f, v); err != nil {
			firstErr = usageError{fmt.Errorf("environment %s: %w", name, err)}
		}
	})
	return firstErr
}

// setFromEnv sets a flag from its environment value; repeatable flags take
// a comma-separated list.
func setFromEnv(f *flag.Flag, v string) error {
	if _, ok := f.Value.(*stringList); ok {
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				if err := f.Value.Set(item); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return f.Value.Set(v)
}

// envName is the environment twin of a flag: --data-dir → TEAMMEM_DATA_DIR.
func envName(flagName string) string {
	return "TEAMMEM_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// errHelp is returned after --help printed the usage (exit 0).
var errHelp = errors.New("help requested")

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

// Set appends one value.
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
