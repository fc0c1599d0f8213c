package mcptools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/memcore/protocol"
)

// memRepo is a Backend holding one repository in memory that leaves out
// entries over maxBytes as a server over its entry limit does: for the
// tools' index handling and their all-or-nothing writes, where a refusal
// must be injected.
type memRepo struct {
	maxBytes int
	version  int64
	entries  map[string]string
}

func newMemRepo(maxBytes int, entries map[string]string) *memRepo {
	return &memRepo{maxBytes: maxBytes, version: 1, entries: maps.Clone(entries)}
}

func (m *memRepo) State(context.Context, string) (State, error) {
	sums := map[string]string{}
	for k, c := range m.entries {
		sums[k] = protocol.EntryChecksum([]byte(c))
	}
	return State{Repo: "acme/api", Version: m.version, Checksum: protocol.DatasetChecksum(sums), Entries: sums}, nil
}

func (m *memRepo) List(context.Context, string) ([]Entry, error) { return nil, nil }

func (m *memRepo) History(context.Context, string, string, int) ([]Revision, error) {
	return nil, nil
}

func (m *memRepo) Revision(_ context.Context, _, key string, _ int64) (Revision, error) {
	c, ok := m.entries[key]
	if !ok {
		return Revision{}, Mark(errors.New("no such key"), ErrNotFound)
	}
	return Revision{Version: m.version, Op: "put", Checksum: protocol.EntryChecksum([]byte(c)), Content: c}, nil
}

func (m *memRepo) Activity(context.Context, string, int) ([]Change, error) { return nil, nil }

func (m *memRepo) Search(context.Context, string, string, int) (Found, error) { return Found{}, nil }

func (m *memRepo) Proposals(context.Context, string, string, int) ([]Proposal, error) {
	return nil, nil
}

func (m *memRepo) Review(context.Context, int64, string, string) (Proposal, error) {
	return Proposal{}, Mark(errors.New("no proposals here"), ErrNotFound)
}

func (m *memRepo) Health(context.Context, string) (Health, error) {
	return Health{Repo: "acme/api", Version: m.version}, nil
}

func (m *memRepo) Write(ctx context.Context, repo string, w Write) (WriteResult, error) {
	st, _ := m.State(ctx, repo)
	if w.IfMatch == CreateOnly && m.version != 0 || w.IfMatch != "" && w.IfMatch != CreateOnly && w.IfMatch != st.Checksum {
		return WriteResult{}, Mark(errors.New("the repository changed"), ErrConflict)
	}
	res := WriteResult{Version: m.version, Checksum: st.Checksum}
	for _, k := range slices.Sorted(maps.Keys(w.Entries)) {
		if n := len(w.Entries[k]); n > m.maxBytes {
			res.Skipped = append(res.Skipped, Skipped{Key: k, Reason: "entry_too_large", Message: fmt.Sprintf("%d bytes; the limit is %d", n, m.maxBytes)})
		}
	}
	if w.AllOrNothing && len(res.Skipped) > 0 {
		return res, nil
	}
	for k, c := range w.Entries {
		if len(c) <= m.maxBytes && m.entries[k] != c {
			m.entries[k] = c
			res.Changed = append(res.Changed, k)
		}
	}
	for _, k := range w.Deletes {
		if _, ok := m.entries[k]; ok {
			delete(m.entries, k)
			res.Deleted = append(res.Deleted, k)
		}
	}
	if len(res.Changed)+len(res.Deleted) > 0 {
		m.version++
	}
	return res, nil
}

// connectTo connects an MCP client to the tools over b.
func connectTo(t *testing.T, b Backend) *mcp.ClientSession {
	t.Helper()
	return connectBackend(t, b, Options{DefaultRepo: "acme/api"})
}

// connectBackend connects a client to a server of the tools over b with
// options o.
func connectBackend(t *testing.T, b Backend, o Options) *mcp.ClientSession {
	t.Helper()
	srv := NewServer(b, o)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callTool calls a tool and returns whether it was refused, with its text.
func callTool(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (refused bool, text string) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.IsError, res.Content[0].(*mcp.TextContent).Text
}
