package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/memcore/secrets"
	"github.com/teammem/teammem/memcore/secrets/secretstest"
)

// TestCredentialNameNeverPushed: a local file whose name carries a
// credential is never pushed and stays as it is; the report and the status name it redacted, with
// the rule, never the credential.
func TestCredentialNameNeverPushed(t *testing.T) {
	token := secretstest.GitHubToken()
	key := "notes/" + token + ".md"
	r := newRig(t, nil, map[string]string{"MEMORY.md": "- [a](a.md) plain\n", "a.md": "a\n", key: "where the deploy key lives\n"}, nil)
	rep := r.sync(t)
	srv := r.remote.snapshot()
	for k, v := range srv {
		if strings.Contains(k, token) || strings.Contains(v, token) {
			t.Errorf("the server got %q: %q", k, v)
		}
	}
	if srv["a.md"] != "a\n" || srv["MEMORY.md"] != "- [a](a.md) plain\n" {
		t.Errorf("server = %v; want a.md and the index", srv)
	}
	if data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(key))); err != nil || string(data) != "where the deploy key lives\n" {
		t.Errorf("the local file: %q, %v; want it kept", data, err)
	}
	shown := "notes/" + secrets.Redacted + ".md"
	if len(rep.Skipped) != 1 || rep.Skipped[0].Path != shown || !strings.Contains(rep.Skipped[0].Reason, "github-pat") {
		t.Errorf("skipped %+v; want %q with the rule", rep.Skipped, shown)
	}
	said, _ := json.Marshal(rep)
	if strings.Contains(string(said), token) || strings.Contains(rep.Skipped[0].String(), token) {
		t.Errorf("the report shows the credential: %s", said)
	}
	st, err := ReadStatus(context.Background(), StatusOptions{Repo: testRepo, Dir: r.dir, StateDir: r.state, Server: "https://fake"})
	if err != nil {
		t.Fatal(err)
	}
	said, _ = json.Marshal(st)
	if len(st.Skipped) != 1 || st.Skipped[0].Path != shown || strings.Contains(string(said), token) {
		t.Errorf("status skipped %+v; want %q, the credential nowhere:\n%s", st.Skipped, shown, said)
	}
}
