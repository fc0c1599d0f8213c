package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/teammem/teammem/testkit/loadgen"
)

var (
	errUsage = errors.New("usage error")
	errHelp  = errors.New("help requested")
)

// options are the parsed command line.
type options struct {
	cfg       loadgen.Config
	tokenFile string
	all       bool
	runs      int
	json      bool
	bigPull   bool
	big       loadgen.BigPullConfig
	floorAddr string
}

// parse reads the flags; getenv supplies TEAMMEM_SERVER and TEAMMEM_TOKEN.
func parse(args []string, getenv func(string) string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("teammem-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.cfg.Server, "server", envOr(getenv, "TEAMMEM_SERVER", "http://127.0.0.1:8080"), "server base URL (TEAMMEM_SERVER)")
	fs.StringVar(&o.cfg.Token, "token", getenv("TEAMMEM_TOKEN"), "bearer token (TEAMMEM_TOKEN)")
	fs.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token")
	fs.StringVar(&o.cfg.Scenario, "scenario", loadgen.GetFull, "one of "+strings.Join(loadgen.Scenarios, ", "))
	fs.StringVar(&o.cfg.Repo, "repo", "", "repository to use (default loadgen/<scenario>-<entries>); it is overwritten")
	fs.IntVar(&o.cfg.Concurrency, "c", loadgen.DefaultConcurrency, "concurrent workers (cas: writers)")
	fs.DurationVar(&o.cfg.Duration, "d", loadgen.DefaultDuration, "run for this long (ignored with -n)")
	fs.IntVar(&o.cfg.Requests, "n", 0, "run this many iterations instead of -d (cas: acknowledged-write attempts)")
	fs.IntVar(&o.cfg.Entries, "entries", loadgen.DefaultEntries, "entries seeded before the run")
	fs.IntVar(&o.cfg.EntryBytes, "entry-bytes", loadgen.DefaultEntryBytes, "bytes per entry")
	fs.IntVar(&o.cfg.SearchRepos, "search-repos", loadgen.DefaultSearchRepos, "search, mcp-read, mcp-search: repositories of the corpus, each of -entries notes")
	fs.BoolVar(&o.cfg.SearchAll, "search-all", false, "search, mcp-search: each query across every repository instead of one")
	fs.IntVar(&o.cfg.ServerPID, "server-pid", 0, "read the server's RSS and CPU time from /proc/PID")
	fs.DurationVar(&o.cfg.Timeout, "timeout", loadgen.DefaultTimeout, "per-request timeout")
	fs.BoolVar(&o.all, "all", false, "run the benchmark set, each case -runs times, and report the medians")
	fs.IntVar(&o.runs, "runs", 3, "runs per case with -all")
	fs.BoolVar(&o.json, "json", false, "print JSON instead of lines")
	fs.BoolVar(&o.bigPull, "big-pull", false, "instead: the memory benchmark of concurrent full pulls of large repositories (needs -server-pid)")
	fs.IntVar(&o.big.Repos, "big-repos", 8, "-big-pull: repositories, pulled at once")
	fs.IntVar(&o.big.RepoBytes, "big-repo-bytes", 50_000_000, "-big-pull: bytes per repository")
	fs.DurationVar(&o.big.Settle, "big-settle", time.Minute, "-big-pull: wait this long after the pulls before reading RSS again")
	fs.StringVar(&o.floorAddr, "serve-floor", "", "instead: serve a handler that does nothing but answer (the CPU floor under the read and put scenarios) on this HOST:PORT until interrupted")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, errHelp
		}
		return o, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "teammem-load: unexpected argument %q\n", fs.Arg(0))
		return o, errUsage
	}
	if o.cfg.Requests > 0 {
		o.cfg.Duration = 0
	}
	if o.floorAddr != "" {
		return o, nil
	}
	return o, o.readToken()
}

// readToken fills the token from -token-file, which wins over -token.
func (o *options) readToken() error {
	if o.tokenFile != "" {
		b, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return fmt.Errorf("read token file: %w", err)
		}
		o.cfg.Token = strings.TrimSpace(string(b))
	}
	if o.cfg.Token == "" {
		return errors.New("no token: give -token, -token-file or TEAMMEM_TOKEN")
	}
	return nil
}

func envOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}
