package mcprest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammem/teammem/client"
)

// TestSearchFallsBackToTheFolder: with the server unreachable, a search of
// the folder's repository (or of every one) answers from the local folder
// and says so in its note; a search of another repository, or one the
// server answers by refusing it, does not.
func TestSearchFallsBackToTheFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "deploys.md"), []byte("---\nname: Deploys\n---\nRun make release.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	local := Local{Dir: dir, Repo: "acme/api", Kind: "team folder"}
	b := New(newClient(t, down), local)
	for _, repo := range []string{"acme/api", ""} {
		found, err := b.Search(t.Context(), "deploy", repo, 10)
		if err != nil || len(found.Hits) != 1 || found.Hits[0].Key != "deploys.md" || found.Hits[0].Repo != "acme/api" ||
			found.Hits[0].Snippet != "Run make release." || !strings.HasPrefix(found.Note, "server unreachable: searched the local team folder "+dir) {
			t.Errorf("repo %q: %+v, %v", repo, found, err)
		}
	}
	if found, err := b.Search(t.Context(), "deploy", "acme/web", 10); err == nil {
		t.Errorf("another repository: %+v, want the server's error", found)
	}
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"code":"unauthorized","message":"bad token"}}`))
	}))
	defer refusing.Close()
	if found, err := New(newClient(t, refusing.URL), local).Search(t.Context(), "deploy", "acme/api", 10); err == nil {
		t.Errorf("a refused token: %+v, want the server's error", found)
	}
}

func newClient(t *testing.T, url string) *client.Client {
	t.Helper()
	cl, err := client.New(client.Options{BaseURL: url, Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}
