package mcprest

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/mcptools"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestWriteAllOrNothing: an all-or-nothing write over REST with an entry
// over the server's limit writes nothing and says which entry was left
// out (a stale precondition is still a conflict); without AllOrNothing the
// rest applies.
func TestWriteAllOrNothing(t *testing.T) {
	srv := servertest.Start(t, servertest.Options{Limits: server.Limits{MaxEntryBytes: 100}})
	srv.Put("acme/api", map[string]string{"MEMORY.md": "# Team\n"}, nil, http.StatusOK)
	cl, err := client.New(client.Options{BaseURL: srv.URL, Token: srv.Admin})
	if err != nil {
		t.Fatal(err)
	}
	b := New(cl)
	w := mcptools.Write{Entries: map[string]string{"big.md": strings.Repeat("x", 200), "MEMORY.md": "# Team\n- [Big](big.md)\n"}, AllOrNothing: true}
	res, err := b.Write(t.Context(), "acme/api", w)
	if err != nil || len(res.Skipped) != 1 || res.Skipped[0].Key != "big.md" || res.Skipped[0].Reason != "entry_too_large" ||
		len(res.Changed) != 0 || res.Version != 1 {
		t.Fatalf("all-or-nothing Write = %+v, %v; want big.md skipped, nothing changed at version 1", res, err)
	}
	stale := w
	stale.IfMatch = "sha256:" + strings.Repeat("0", 64)
	if _, err := b.Write(t.Context(), "acme/api", stale); !errors.Is(err, mcptools.ErrConflict) {
		t.Fatalf("all-or-nothing Write with a stale If-Match = %v; want ErrConflict", err)
	}
	w.AllOrNothing = false
	res, err = b.Write(t.Context(), "acme/api", w)
	if err != nil || len(res.Skipped) != 1 || !slices.Equal(res.Changed, []string{"MEMORY.md"}) || res.Version != 2 {
		t.Fatalf("Write = %+v, %v; want big.md skipped and MEMORY.md written", res, err)
	}
}
