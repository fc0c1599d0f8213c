package mcptools

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammem/teammem/memcore/protocol"
)

// ListInput is the input of list_memories.
type ListInput struct {
	Repo string `json:"repo,omitempty" jsonschema:"repository slug such as acme/api (default: the checkout's, when the server knows it)"`
}

func (in ListInput) target() (string, string) { return in.Repo, "" }

// Memory is one entry of list_memories.
type Memory struct {
	Key         string `json:"key"`
	Description string `json:"description" jsonschema:"the frontmatter description, else the first line"`
	Size        int64  `json:"size" jsonschema:"bytes"`
	Checksum    string `json:"checksum"`
	Author      string `json:"author,omitempty" jsonschema:"who changed it last"`
	UpdatedAt   string `json:"updated_at,omitempty" jsonschema:"when it was changed last (RFC 3339)"`
}

// ListOutput is the output of list_memories.
type ListOutput struct {
	Repo     string   `json:"repo"`
	Memories []Memory `json:"memories" jsonschema:"the index (MEMORY.md) first, then the topics by key"`
	// Org are the memories of the org memories that apply to the
	// repository (its namespaces' .memory repositories), nearest first.
	Org []OrgList `json:"org_memories,omitempty" jsonschema:"the org memories that apply to this repository (acme/.memory for acme/api), nearest namespace first, each with its memories"`
}

// SearchInput is the input of search_memories.
type SearchInput struct {
	Query string `json:"query" jsonschema:"a few keywords"`
	Repo  string `json:"repo,omitempty" jsonschema:"search this repository only (default: every repository the token can read)"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many hits (default 10, at most 50)"`
}

func (in SearchInput) target() (string, string) { return in.Repo, "" }

// SearchHit is one hit of search_memories.
type SearchHit struct {
	Repo    string `json:"repo"`
	Key     string `json:"key"`
	Snippet string `json:"snippet"`
	// Org marks a hit in an org memory.
	Org bool `json:"org_memory,omitempty" jsonschema:"the hit is in an org memory (a namespace's .memory repository), which applies to every repository of the namespace"`
}

// SearchOutput is the output of search_memories.
type SearchOutput struct {
	Hits []SearchHit `json:"hits"`
	Note string      `json:"note,omitempty" jsonschema:"how the search was made when not as asked: the server unreachable, the local memory folder searched instead"`
}

// ReadInput is the input of read_memory.
type ReadInput struct {
	Repo    string `json:"repo,omitempty" jsonschema:"repository slug such as acme/api"`
	Key     string `json:"key" jsonschema:"the memory's key, such as MEMORY.md or testing/flaky-db.md"`
	Version int64  `json:"version,omitempty" jsonschema:"read the key as it was at this version (default: the current content)"`
}

func (in ReadInput) target() (string, string) { return in.Repo, in.Key }

// ReadOutput is the output of read_memory.
type ReadOutput struct {
	Repo     string `json:"repo"`
	Key      string `json:"key"`
	Version  int64  `json:"version" jsonschema:"the version of the key's last change"`
	Checksum string `json:"checksum" jsonschema:"sha256: checksum of the content; pass it as write_memory's expected_checksum"`
	Author   string `json:"author,omitempty"`
	At       string `json:"at,omitempty"`
	Content  string `json:"content"`
}

// HistoryInput is the input of memory_history.
type HistoryInput struct {
	Repo  string `json:"repo,omitempty" jsonschema:"repository slug such as acme/api"`
	Key   string `json:"key,omitempty" jsonschema:"the key whose revisions to list (default: the repository's activity)"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many (default 20, at most 100)"`
}

func (in HistoryInput) target() (string, string) { return in.Repo, in.Key }

// HistoryItem is one revision of a key, or one version of a repository.
type HistoryItem struct {
	Version  int64    `json:"version"`
	Author   string   `json:"author"`
	At       string   `json:"at"`
	Op       string   `json:"op,omitempty" jsonschema:"put or delete (a key's revision)"`
	Checksum string   `json:"checksum,omitempty"`
	Size     int64    `json:"size,omitempty"`
	Changed  []string `json:"changed,omitempty" jsonschema:"keys written (a repository's version)"`
	Deleted  []string `json:"deleted,omitempty" jsonschema:"keys deleted (a repository's version)"`
	// Provenance says who wrote the version and through what.
	Provenance *Provenance `json:"provenance,omitempty" jsonschema:"who wrote the version and through what: subject, credential, surface (agent, mcp, rest, web, seed, restore, consolidation), client, machine, commit"`
}

// HistoryOutput is the output of memory_history.
type HistoryOutput struct {
	Repo  string        `json:"repo"`
	Key   string        `json:"key,omitempty"`
	Items []HistoryItem `json:"items" jsonschema:"newest first"`
}

func (t *tools) addRead(s *mcp.Server) {
	add(t, s, &mcp.Tool{Name: "list_memories", Annotations: readOnly,
		Description: "List a repository's team memories: each key with its description, size, last author and time; the index (MEMORY.md) first. The org memories that apply to it (acme/.memory for acme/api) follow in org_memories."}, t.list)
	add(t, s, &mcp.Tool{Name: "search_memories", Annotations: readOnly,
		Description: "Search the team's memories for a few keywords, in one repository or every one the token can read; each hit names its repository and key with a snippet, and org_memory marks a hit in an org memory (searched too when a repository is named). Use it before a task and when the code does not say why."}, t.search)
	add(t, s, &mcp.Tool{Name: "read_memory", Annotations: readOnly,
		Description: "Read one memory: its content, sha256: checksum and version (or the content it had at an older version)."}, t.read)
	add(t, s, &mcp.Tool{Name: "memory_history", Annotations: readOnly,
		Description: "A key's revisions (who changed it, when, put or delete, and through what: surface, client, machine, commit), or without key the repository's recent changes; newest first."}, t.history)
}

func (t *tools) list(ctx context.Context, in ListInput) (ListOutput, error) {
	repo, err := t.repo(in.Repo)
	if err != nil {
		return ListOutput{}, err
	}
	entries, err := t.b.List(ctx, repo)
	if err != nil {
		return ListOutput{}, err
	}
	out := ListOutput{Repo: repo, Memories: memories(entries)}
	if out.Org, err = t.listOrgs(ctx, repo); err != nil {
		return ListOutput{}, err
	}
	return out, nil
}

// memories describes entries, the index first.
func memories(entries []Entry) []Memory {
	out := make([]Memory, 0, len(entries))
	for _, e := range entries {
		out = append(out, Memory{Key: e.Key, Description: Describe(e.Content), Size: e.Size,
			Checksum: e.Checksum, Author: e.Author, UpdatedAt: timeText(e.At)})
	}
	slices.SortStableFunc(out, func(a, b Memory) int {
		switch {
		case a.Key == IndexKey:
			return -1
		case b.Key == IndexKey:
			return 1
		}
		return 0
	})
	return out
}

// Search limits.
const (
	defaultSearchLimit = 10
	maxSearchLimit     = 50
)

func (t *tools) search(ctx context.Context, in SearchInput) (SearchOutput, error) {
	if in.Query == "" {
		return SearchOutput{}, refusef("query is required: a few keywords")
	}
	limit := in.Limit
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	limit = min(limit, maxSearchLimit)
	found, err := t.b.Search(ctx, in.Query, in.Repo, limit)
	if err != nil {
		return SearchOutput{}, err
	}
	hits := found.Hits
	// The repository's own hits first, then its org memories'; a search
	// the backend answered otherwise (the local folder, the server being
	// unreachable) has no org memories to add.
	if in.Repo != "" && found.Note == "" && len(hits) < limit {
		org, err := t.searchOrgs(ctx, in.Query, in.Repo, limit-len(hits))
		if err != nil {
			return SearchOutput{}, err
		}
		hits = append(hits, org...)
	}
	out := SearchOutput{Hits: make([]SearchHit, 0, len(hits)), Note: found.Note}
	for _, h := range hits {
		out.Hits = append(out.Hits, SearchHit{Repo: h.Repo, Key: h.Key, Snippet: h.Snippet, Org: protocol.IsOrgMemory(h.Repo)})
	}
	return out, nil
}

func (t *tools) read(ctx context.Context, in ReadInput) (ReadOutput, error) {
	repo, err := t.repo(in.Repo)
	if err != nil {
		return ReadOutput{}, err
	}
	if in.Key == "" {
		return ReadOutput{}, refusef("key is required, such as %s", IndexKey)
	}
	if in.Version < 0 {
		return ReadOutput{}, refusef("version must be a positive version number")
	}
	rev, err := t.b.Revision(ctx, repo, in.Key, in.Version)
	if in.Version == 0 {
		rev, err = live(rev, err, repo, in.Key)
	}
	if err != nil {
		return ReadOutput{}, err
	}
	return ReadOutput{Repo: repo, Key: in.Key, Version: rev.Version, Checksum: rev.Checksum,
		Author: rev.Author, At: timeText(rev.At), Content: rev.Content}, nil
}

// live is the newest revision of key (rev, err as Backend.Revision gave it
// for version 0) when the key is live; a key that never existed or is
// deleted is ErrNotFound, said as such.
func live(rev Revision, err error, repo, key string) (Revision, error) {
	switch {
	case errors.Is(err, ErrNotFound):
		return Revision{}, Mark(fmt.Errorf("no memory %q in %s", key, repo), ErrNotFound)
	case err != nil:
		return Revision{}, err
	case rev.Op == "delete":
		return Revision{}, Mark(fmt.Errorf("memory %q of %s was deleted at version %d by %s; memory_history lists the versions it had", key, repo, rev.Version, rev.Author), ErrNotFound)
	}
	return rev, nil
}

// History limits.
const (
	defaultHistoryLimit = 20
	maxHistoryLimit     = 100
)

func (t *tools) history(ctx context.Context, in HistoryInput) (HistoryOutput, error) {
	repo, err := t.repo(in.Repo)
	if err != nil {
		return HistoryOutput{}, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = defaultHistoryLimit
	}
	limit = min(limit, maxHistoryLimit)
	out := HistoryOutput{Repo: repo, Key: in.Key, Items: []HistoryItem{}}
	if in.Key != "" {
		revs, err := t.b.History(ctx, repo, in.Key, limit)
		if err != nil {
			return HistoryOutput{}, err
		}
		for _, r := range revs {
			out.Items = append(out.Items, HistoryItem{Version: r.Version, Author: r.Author, At: timeText(r.At), Op: r.Op, Checksum: r.Checksum, Size: r.Size,
				Provenance: r.Provenance})
		}
		return out, nil
	}
	changes, err := t.b.Activity(ctx, repo, limit)
	if errors.Is(err, ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return HistoryOutput{}, err
	}
	for _, c := range changes {
		out.Items = append(out.Items, HistoryItem{Version: c.Version, Author: c.Author, At: timeText(c.At), Changed: c.Changed, Deleted: c.Deleted,
			Provenance: c.Provenance})
	}
	return out, nil
}
