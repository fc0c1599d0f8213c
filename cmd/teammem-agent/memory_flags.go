package main

import (
	"errors"
	"flag"
	"io"
	"time"
)

// memoryFlags are the flags of every memory subcommand.
type memoryFlags struct {
	cwd, home, managedDir string
	json                  bool
	staleAfter            time.Duration // 0: off
	since                 string        // memory logs: the first day, YYYY-MM-DD
}

// parseMemoryFlags parses flags anywhere among the arguments and returns the
// positional ones. Environment twins fill what the flags leave unset. The
// common agent flags are accepted so that scripts can pass one set to every
// subcommand: --repo-dir (TEAMMEM_REPO_DIR) stands in for --cwd, --log-level
// must name a level, the rest are ignored.
func parseMemoryFlags(e *cliEnv, args []string) (memoryFlags, []string, error) {
	getenv := e.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var common commonFlags
	fs := flag.NewFlagSet("memory", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	common.register(fs) // includes --json
	common.json = envTrue(getenv("TEAMMEM_JSON"))
	f := memoryFlags{home: getenv("TEAMMEM_HOME"), managedDir: getenv("TEAMMEM_MANAGED_DIR")}
	fs.StringVar(&f.cwd, "cwd", "", "working directory")
	fs.StringVar(&f.home, "home", f.home, "home directory")
	fs.StringVar(&f.managedDir, "managed-dir", f.managedDir, "managed policy folder")
	fs.StringVar(&f.since, "since", "", "first day of the logs")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return f, nil, err
	}
	if _, err := newLogger(e, common.logLevel); err != nil {
		return f, nil, err
	}
	f.json, f.staleAfter = common.json, common.staleAfter
	f.cwd = firstNonEmpty(f.cwd, common.repoDir, getenv("TEAMMEM_CWD"), getenv("TEAMMEM_REPO_DIR"))
	return f, pos, nil
}

// parseInterleaved parses flags anywhere among args and returns the
// positional arguments in order.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage("memory: %v", err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// firstNonEmpty returns the first value that is not empty, or "".
func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// envTrue reads an environment boolean; unset or unknown is false.
func envTrue(v string) bool {
	switch v {
	case "1", "true", "TRUE", "True", "yes", "on":
		return true
	}
	return false
}
