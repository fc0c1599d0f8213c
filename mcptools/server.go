package mcptools

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure the tools of one server.
type Options struct {
	// DefaultRepo is the repository of a call that names none ("" makes
	// repo required, except for search_memories).
	DefaultRepo string
	// Version is reported to clients as the server's version.
	Version string
	// Observe, when not nil, is told of every tool call once it ended: the
	// tool, its outcome (see Outcome*) and how long it took. It must not
	// block.
	Observe func(ctx context.Context, c Call)
	// Budget bounds each call (the zero Budget: no bound).
	Budget Budget
	// ProtocolVersions, when not empty, are the protocol revisions the
	// server negotiates (default: every one the SDK supports).
	ProtocolVersions []string
	// SchemaCache shares the tools' schemas between servers (one per
	// request on a stateless endpoint); nil builds them per server.
	SchemaCache *mcp.SchemaCache
}

// Call is one finished tool call, as told to Options.Observe: never the
// content, the query or anything else the caller sent but the repository
// and key, with any credential in them redacted (secrets.Redact).
type Call struct {
	Tool     string
	Outcome  string
	Repo     string
	Key      string
	Duration time.Duration
	// Err is the error of a refused or failed call (its message is what
	// the caller was told).
	Err error
}

// Outcomes of a tool call.
const (
	OutcomeOK      = "ok"      // the tool did what was asked
	OutcomeRefused = "refused" // a tool error the caller can act on (invalid, forbidden, not found, conflict, secret)
	OutcomeFailed  = "failed"  // the backend failed (unreachable, internal)
)

// Name is the server's name; clients show the tools as mcp__teammem__<tool>.
const Name = "teammem"

// NewServer returns an MCP server with the memory and review tools over b.
func NewServer(b Backend, o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Team memory", Version: o.Version},
		&mcp.ServerOptions{Instructions: Instructions, SchemaCache: o.SchemaCache, SupportedProtocolVersions: o.ProtocolVersions,
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	t := &tools{b: b, o: o}
	t.addRead(s)
	t.addWrite(s)
	t.addReview(s)
	t.addHealth(s)
	return s
}

// ServeStdio serves s over standard input and output until ctx ends or the
// client closes its end.
func ServeStdio(ctx context.Context, s *mcp.Server) error {
	return s.Run(ctx, &mcp.StdioTransport{})
}

// tools are the handlers over one backend.
type tools struct {
	b Backend
	o Options
}

// repo returns the repository a call names, else the default.
func (t *tools) repo(r string) (string, error) {
	if r != "" {
		return r, nil
	}
	if t.o.DefaultRepo != "" {
		return t.o.DefaultRepo, nil
	}
	return "", refusef("repo is required: name the repository, such as acme/api")
}
