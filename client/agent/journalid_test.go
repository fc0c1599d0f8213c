package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

const (
	testServerID  = "0123456789abcdef0123456789abcdef"
	otherServerID = "fedcba9876543210fedcba9876543210"
)

// savedJournal opens, fills and saves a journal with open.
func savedJournal(t *testing.T, open func() (*Journal, error), entries ...string) *Journal {
	t.Helper()
	j, err := open()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range entries {
		j.Record(k, "content of "+k)
	}
	j.settle()
	if err := j.Save(); err != nil {
		t.Fatal(err)
	}
	return j
}

func TestServerJournalFollowsTheIdentity(t *testing.T) {
	state := t.TempDir()
	j := savedJournal(t, func() (*Journal, error) {
		return OpenServerJournal(state, "http://127.0.0.1:8080", testServerID, testRepo, testFolder)
	}, "a.md", "b.md")
	if j.Path() != ServerJournalPath(state, testServerID, testRepo, testFolder) {
		t.Errorf("path %s; want the identity's", j.Path())
	}
	// The same server by another URL: the same journal, naming the new URL.
	got, err := OpenServerJournal(state, "http://localhost:8080", testServerID, testRepo, testFolder)
	if err != nil || len(got.Entries) != 2 || got.Unsettled || got.Server != "http://localhost:8080" || got.Path() != j.Path() {
		t.Fatalf("by another URL = %+v, %v; want the 2 entries, settled, under the new URL", got, err)
	}
	// Another server by the same URL: another history.
	other, err := OpenServerJournal(state, "http://127.0.0.1:8080", otherServerID, testRepo, testFolder)
	if err != nil || len(other.Entries) != 0 || !other.Unsettled || other.Path() == j.Path() {
		t.Errorf("another server = %+v, %v; want an empty, unsettled journal of its own", other, err)
	}
	// A journal whose file names another identity is not trusted.
	data, _ := os.ReadFile(j.Path())
	if err := os.WriteFile(ServerJournalPath(state, otherServerID, testRepo, testFolder), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenServerJournal(state, "http://x", otherServerID, testRepo, testFolder); !errors.Is(err, ErrCorruptJournal) {
		t.Errorf("a file of another identity: %v; want ErrCorruptJournal", err)
	}
}

func TestURLJournalMovesToTheIdentity(t *testing.T) {
	state := t.TempDir()
	const url = "http://127.0.0.1:8080"
	legacy := savedJournal(t, func() (*Journal, error) { return OpenJournal(state, url, testRepo, testFolder) }, "a.md")
	if err := os.WriteFile(StreamStatePath(legacy.Path()), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Another URL's journal is not this server's for sure: it stays.
	elsewhere := savedJournal(t, func() (*Journal, error) {
		return OpenJournal(state, "http://old.example:8080", testRepo, testFolder)
	}, "z.md")

	j, err := OpenServerJournal(state, url, testServerID, testRepo, testFolder)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := j.Entries["a.md"]; !ok || j.ServerID != testServerID || j.Unsettled ||
		j.Path() != ServerJournalPath(state, testServerID, testRepo, testFolder) {
		t.Fatalf("moved journal = %+v; want a.md under the identity", j)
	}
	if _, err := os.Stat(legacy.Path()); !os.IsNotExist(err) {
		t.Errorf("the URL's journal is still there: %v", err)
	}
	if _, err := os.Stat(StreamStatePath(j.Path())); err != nil {
		t.Errorf("stream state not moved with the journal: %v", err)
	}
	if _, err := os.Stat(elsewhere.Path()); err != nil {
		t.Errorf("another URL's journal was touched: %v", err)
	}
	// Reopened by another spelling: the moved journal.
	again, err := OpenServerJournal(state, "http://localhost:8080", testServerID, testRepo, testFolder)
	if _, ok := again.Entries["a.md"]; err != nil || !ok {
		t.Errorf("reopened = %+v, %v", again, err)
	}
	// Without an identity, OpenJournal's URL-keyed journal, as before.
	byURL, err := OpenServerJournal(state, "http://old.example:8080", "", testRepo, testFolder)
	if _, ok := byURL.Entries["z.md"]; err != nil || !ok {
		t.Errorf("without an identity = %+v, %v; want the URL's journal", byURL, err)
	}
}

// identifier answers ServerInfo with id or err.
type identifier struct {
	id  string
	err error
}

func (i identifier) ServerInfo(context.Context) (*api.ServerInfo, error) {
	if i.err != nil {
		return nil, i.err
	}
	return &api.ServerInfo{ServerID: i.id}, nil
}

func TestResolveServerID(t *testing.T) {
	state := t.TempDir()
	const url = "http://127.0.0.1:8080"
	savedJournal(t, func() (*Journal, error) { return OpenServerJournal(state, url, testServerID, testRepo, testFolder) })
	savedJournal(t, func() (*Journal, error) {
		return OpenServerJournal(state, "http://other:1", otherServerID, testRepo, testFolder)
	})
	offline := fmt.Errorf("get server identity: %w: connection refused", client.ErrNetwork)
	tests := []struct {
		name, server string
		id           identifier
		want         string
	}{
		{"answered", url, identifier{id: otherServerID}, otherServerID},
		{"unreachable: the journal last kept for that URL", url, identifier{err: offline}, testServerID},
		{"timed out", "http://other:1", identifier{err: context.DeadlineExceeded}, otherServerID},
		{"unreachable, no journal for that URL", "http://new:1", identifier{err: offline}, ""},
		{"a server without identity", url, identifier{err: fmt.Errorf("x: %w", client.ErrNotFound)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ResolveServerID(context.Background(), tt.id, state, tt.server, testRepo, testFolder); got != tt.want {
				t.Errorf("ResolveServerID = %q; want %q", got, tt.want)
			}
		})
	}
	if got := ResolveServerID(context.Background(), identifier{err: offline}, state, url, "acme/other", filepath.Join(state, "x")); got != "" {
		t.Errorf("another repo's journal lent its identity: %q", got)
	}
}

// TestReplacedServerIsNotReseededSilently: the URL a folder synced by
// answers as another database (wiped, replaced): nothing is pushed or
// saved until --reseed, which syncs it as a new history and forgets the
// old journal.
func TestReplacedServerIsNotReseededSilently(t *testing.T) {
	r := newRig(t, nil, map[string]string{"a.md": "a\n", "b.md": "b\n"}, nil)
	const url = "http://mem.example:8080"
	old, err := OpenServerJournal(r.state, url, testServerID, testRepo, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	old.Record("a.md", "a\n")
	old.Record("b.md", "b\n")
	old.SetDataset("sha256:x", 7)
	if err := old.Save(); err != nil {
		t.Fatal(err)
	}
	open := func(reseed bool) *Engine {
		j, err := OpenServerJournal(r.state, url, otherServerID, testRepo, r.dir)
		if err != nil || j.replaced == nil {
			t.Fatalf("journal of the new identity = %+v, %v; want one that replaced the old", j, err)
		}
		return r.newEngine(t, func(c *Config) { c.Journal, c.Reseed = j, reseed })
	}
	e := open(false)
	_, err = e.Sync(context.Background())
	if !errors.Is(err, ErrServerReplaced) || !strings.Contains(err.Error(), "last synced version 7") {
		t.Fatalf("Sync = %v; want ErrServerReplaced naming version 7", err)
	}
	newPath := ServerJournalPath(r.state, otherServerID, testRepo, r.dir)
	if _, err := os.Stat(newPath); !os.IsNotExist(err) || len(r.remote.puts) != 0 {
		t.Errorf("new journal saved (%v) or %d pushes; want neither", err, len(r.remote.puts))
	}
	e = open(true)
	if _, err := e.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := r.remote.snapshot(); len(got) != 2 {
		t.Errorf("server after --reseed = %v; want both files", got)
	}
	if _, err := os.Stat(old.Path()); !os.IsNotExist(err) {
		t.Errorf("old journal still there after --reseed: %v", err)
	}
	if j, err := OpenServerJournal(r.state, url, otherServerID, testRepo, r.dir); err != nil || j.replaced != nil || len(j.Entries) != 2 {
		t.Errorf("reopened = %+v, %v; want the new history, settled", j, err)
	}
}
