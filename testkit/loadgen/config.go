// Package loadgen drives a real teammem server over HTTP to measure it: a
// few fixed scenarios of the team memory protocol (full pulls, 304 probes,
// hashes probes, single-key pushes, and compare-and-swap writers that must
// lose no acknowledged update), run by concurrent workers on kept-alive
// connections for a duration or a number of iterations, reported as request
// counts, errors by status, requests per second, latency percentiles, the
// server's resident memory and its CPU time per request.
package loadgen

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// Scenario names.
const (
	GetFull = "get-full" // GET of a repository seeded with Entries entries
	Get304  = "get-304"  // GET with If-None-Match of the current ETag; every answer must be 304
	Hashes  = "hashes"   // GET ?view=hashes of a seeded repository
	Put     = "put"      // single-key PUT of a new EntryBytes entry, rotating over the seeded keys
	CAS     = "cas"      // GET hashes, then PUT with If-Match, retried on 412; no acknowledged write may be lost
	Search  = "search"   // GET /api/v1/search over SearchRepos repositories of Entries notes (SearchAll: across all)
	// MCP tools/call on /mcp over the search corpus: read_memory of one
	// note, search_memories (SearchAll: across all repositories).
	MCPRead   = "mcp-read"
	MCPSearch = "mcp-search"
)

// Scenarios lists every scenario name.
var Scenarios = []string{GetFull, Get304, Hashes, Put, CAS, Search, MCPRead, MCPSearch}

// Defaults of Config.
const (
	DefaultConcurrency = 16
	DefaultDuration    = 5 * time.Second
	DefaultEntries     = 20
	DefaultEntryBytes  = 2048
	DefaultTimeout     = 30 * time.Second
	DefaultSearchRepos = 100
	// MaxSeedBody bounds the JSON body of one seeding PUT.
	MaxSeedBody = 200_000
)

// ErrConfig is wrapped by every error about a Config that cannot run.
var ErrConfig = errors.New("invalid configuration")

// Config says what to run against which server.
type Config struct {
	Server      string        // base URL, such as http://127.0.0.1:8080
	Token       string        // bearer token
	Scenario    string        // one of Scenarios
	Repo        string        // repository slug; "" = loadgen/<scenario>-<entries>
	Concurrency int           // workers (the writers of cas)
	Duration    time.Duration // how long to run when Requests is 0
	Requests    int           // iterations in total; 0 = run for Duration
	Entries     int           // entries seeded before the clock starts
	EntryBytes  int           // bytes of each entry's content
	ServerPID   int           // when > 0, the server's RSS and CPU time are read from /proc
	Timeout     time.Duration // per request
	HTTPClient  *http.Client  // nil = a keep-alive client sized for Concurrency
	SearchRepos int           // search: repositories of the corpus (default 100)
	SearchAll   bool          // search: each query across every repository instead of one
}

// withDefaults returns c with zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Duration == 0 && c.Requests == 0 {
		c.Duration = DefaultDuration
	}
	if c.Entries == 0 {
		c.Entries = DefaultEntries
	}
	if c.EntryBytes == 0 {
		c.EntryBytes = DefaultEntryBytes
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.SearchRepos == 0 {
		c.SearchRepos = DefaultSearchRepos
	}
	if c.Repo == "" {
		c.Repo = fmt.Sprintf("loadgen/%s-%d", c.Scenario, c.Entries)
	}
	return c
}

// validate reports the first thing that keeps c from running.
func (c Config) validate() error {
	u, err := url.Parse(c.Server)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("%w: server %q is not an http(s) URL", ErrConfig, c.Server)
	case !slices.Contains(Scenarios, c.Scenario):
		return fmt.Errorf("%w: unknown scenario %q (want one of %v)", ErrConfig, c.Scenario, Scenarios)
	case c.Concurrency < 1 || c.Requests < 0 || c.Duration < 0:
		return fmt.Errorf("%w: concurrency must be positive, duration and requests not negative", ErrConfig)
	case c.SearchRepos < 1:
		return fmt.Errorf("%w: search repos must be positive", ErrConfig)
	case c.Entries < 1:
		return fmt.Errorf("%w: entries must be positive", ErrConfig)
	case c.EntryBytes < 64 || c.EntryBytes > MaxSeedBody/2:
		return fmt.Errorf("%w: entry bytes must be between 64 and %d", ErrConfig, MaxSeedBody/2)
	}
	return nil
}
