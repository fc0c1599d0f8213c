package server_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/sqlite"
)

// TestProvenanceClaims: what a writer says of itself is kept only in a
// shape fit to show: a machine name without control, format or
// bidirectional characters and within its bound, a commit id of hex
// digits, one of the surfaces an agent may claim.
func TestProvenanceClaims(t *testing.T) {
	for _, tt := range []struct {
		name  string
		check func(string) error
		value string
		ok    bool
	}{
		{"machine", server.CheckMachine, "ana-laptop.local", true},
		{"machine none", server.CheckMachine, "", true},
		{"machine of another script", server.CheckMachine, "ノートパソコン", true},
		{"machine with a space", server.CheckMachine, "Ana's MacBook Pro", true},
		{"machine at its bound", server.CheckMachine, strings.Repeat("m", server.MaxMachineBytes), true},
		{"machine too long", server.CheckMachine, strings.Repeat("m", server.MaxMachineBytes+1), false},
		{"machine with ESC", server.CheckMachine, "a\x1b[31mb", false},
		{"machine with a newline", server.CheckMachine, "a\nb", false},
		{"machine with a tab", server.CheckMachine, "a\tb", false},
		{"machine with RLO", server.CheckMachine, "a\u202eb", false},
		{"machine with an isolate", server.CheckMachine, "a\u2067b", false},
		{"machine with a zero-width joiner", server.CheckMachine, "a\u200db", false},
		{"machine with a no-break space", server.CheckMachine, "a\u00a0b", false},
		{"machine with a private use character", server.CheckMachine, "a\ue000b", false},
		{"machine not UTF-8", server.CheckMachine, "a\xffb", false},
		{"machine with U+FFFD", server.CheckMachine, "a\ufffdb", false},
		{"commit SHA-1", server.CheckCommit, "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39", true},
		{"commit SHA-256", server.CheckCommit, strings.Repeat("ab", 32), true},
		{"commit abbreviated", server.CheckCommit, "4f2a9c1", true},
		{"commit none", server.CheckCommit, "", true},
		{"commit too short", server.CheckCommit, "4f2a9c", false},
		{"commit too long", server.CheckCommit, strings.Repeat("a", 65), false},
		{"commit in capitals", server.CheckCommit, "4F2A9C1E", false},
		{"commit a branch", server.CheckCommit, "main", false},
		{"surface seed", claim, "seed", true},
		{"surface restore", claim, "restore", true},
		{"surface mcp", claim, "mcp", true},
		{"surface consolidation", claim, "consolidation", true},
		{"surface none", claim, "", true},
		{"surface web", claim, "web", false},
		{"surface rest", claim, "rest", false},
		{"surface unknown", claim, "unknown", false},
		{"surface in capitals", claim, "SEED", false},
	} {
		err := tt.check(tt.value)
		if (err == nil) != tt.ok {
			t.Errorf("%s %q: %v; want ok %v", tt.name, tt.value, err, tt.ok)
		}
		if err != nil && !errors.Is(err, server.ErrInvalid) {
			t.Errorf("%s: %v does not wrap ErrInvalid", tt.name, err)
		}
	}
}

func claim(s string) error {
	_, err := server.ClaimSurface(s)
	return err
}

// TestCleanClient: a client's name is kept, never refused: cut to its
// bound at a character boundary, each character that could hide or
// reorder text replaced.
func TestCleanClient(t *testing.T) {
	for in, want := range map[string]string{
		"claude-cli/2.1.0 (external, cli)": "claude-cli/2.1.0 (external, cli)",
		"  teammem-agent/1.0  ":            "teammem-agent/1.0",
		"evil\u202e/1.0":                   "evil\ufffd/1.0",
		"a\x00b\x1bc\td":                   "a\ufffdb\ufffdc\ufffdd",
		"a\xffb":                           "a\ufffdb",
		strings.Repeat("é", 150):           strings.Repeat("é", server.MaxClientBytes/2),
	} {
		if got := server.CleanClient(in); got != want {
			t.Errorf("CleanClient(%q) = %q; want %q", in, got, want)
		}
		if got := server.CleanClient(want); got != want {
			t.Errorf("CleanClient is not idempotent on %q: %q", want, got)
		}
	}
}

func TestCredentialOf(t *testing.T) {
	for _, tt := range []struct{ kind, id, want string }{
		{"token", "0123456789abcdef01234567", "token:0123456789abcdef01234567"},
		{"oidc", "", "oidc"},
		{"oidc", "run 42", "oidc"},
		{"oidc", "run\u202e42", "oidc"},
		{"oidc", strings.Repeat("x", 129), "oidc"},
		{"session", "c2Vzc2lvbg", "session:c2Vzc2lvbg"},
	} {
		if got := server.CredentialOf(tt.kind, tt.id); got != tt.want {
			t.Errorf("CredentialOf(%q, %q) = %q; want %q", tt.kind, tt.id, got, tt.want)
		}
	}
}

// TestPutStampsPrincipal: Service.Put records who wrote a version from
// the verified principal, whatever the input's provenance claims, and
// refuses claims it does not keep, writing nothing.
func TestPutStampsPrincipal(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "t.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := server.NewService(db, server.Config{})
	ana := server.Principal{Subject: "ana", Credential: "token:0123456789abcdef01234567", DisplayName: "Ana Silva",
		Grants: []server.Grant{{Glob: []string{"**"}, Perm: server.PermWrite}}}
	forged := server.Provenance{Subject: "mallory", Credential: "token:forged", DisplayName: "Mallory",
		Surface: server.SurfaceWeb, Client: "curl/8", Machine: "m1"}
	if _, err := svc.Put(ctx, ana, "acme/api", server.PutInput{Entries: map[string]string{"a.md": "x"},
		Provenance: server.Provenance{Machine: "bad\x1b"}}); !errors.Is(err, server.ErrInvalid) {
		t.Fatalf("Put with a control character in the machine: %v; want ErrInvalid", err)
	}
	if _, err := svc.Put(ctx, ana, "acme/api", server.PutInput{Entries: map[string]string{"a.md": "x"}, Provenance: forged}); err != nil {
		t.Fatal(err)
	}
	revs, err := svc.History(ctx, ana, "acme/api", "a.md", 0, 0)
	if err != nil || len(revs) != 1 {
		t.Fatalf("History = %v, %v; want the one write", revs, err)
	}
	want := server.Provenance{Subject: "ana", Credential: ana.Credential, DisplayName: "Ana Silva",
		Surface: server.SurfaceWeb, Client: "curl/8", Machine: "m1"}
	if got := revs[0].Provenance; got != want {
		t.Errorf("provenance %+v; want %+v", got, want)
	}
}
