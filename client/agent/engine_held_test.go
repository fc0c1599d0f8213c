package agent

import (
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/memcore/secrets/secretstest"
)

// TestIndexLineOfAWithheldFileIsHeldBack: a local index line links a file
// holding a credential (never pushed): the line is held back with it (no
// teammate gets a dead link), said once, kept locally, and pushed with the
// file once the credential is gone. The skipped file is said once per
// change, not on every push.
func TestIndexLineOfAWithheldFileIsHeldBack(t *testing.T) {
	token := secretstest.GitHubToken()
	index := "- [a](a.md) plain\n- [keys](keys.md) the deploy key\n"
	r := newRig(t, nil, map[string]string{"MEMORY.md": index, "a.md": "a\n", "keys.md": "token " + token + "\n"}, nil)
	rep := r.sync(t)
	if got := r.remote.snapshot()["MEMORY.md"]; got != "- [a](a.md) plain\n" {
		t.Errorf("server index = %q; want the line of keys.md held back", got)
	}
	warned := func(rep Report) bool {
		return strings.Contains(strings.Join(rep.Warnings, "\n"), "1 index lines held back")
	}
	skipped := func(rep Report) bool { return len(rep.Skipped) == 1 && rep.Skipped[0].Path == "keys.md" }
	if !warned(rep) || !skipped(rep) {
		t.Errorf("first sync: warnings %q, skipped %v; want the held line and keys.md said", rep.Warnings, rep.Skipped)
	}
	if got := r.local(t)["MEMORY.md"]; got != index {
		t.Errorf("local index = %q; want it unchanged", got)
	}

	// Another edit (the index too): pushed, the held line and the skip not
	// said again.
	writeTree(t, r.dir, map[string]string{"b.md": "b\n", "MEMORY.md": index + "- [b](b.md)\n"})
	rep = r.sync(t)
	if got := r.remote.snapshot()["MEMORY.md"]; got != "- [a](a.md) plain\n- [b](b.md)\n" {
		t.Errorf("server index = %q; want b's line, keys' still held", got)
	}
	if warned(rep) || len(rep.Skipped) != 0 {
		t.Errorf("second sync: warnings %q, skipped %v; want nothing said again", rep.Warnings, rep.Skipped)
	}
	// A teammate adds a line: merged locally, the held line stays local.
	r.remote.apply(apiPut(map[string]string{"MEMORY.md": "- [a](a.md) plain\n- [b](b.md)\n- [c](c.md)\n", "c.md": "c\n"}))
	r.sync(t)
	if got := r.local(t)["MEMORY.md"]; !strings.Contains(got, "keys.md") || !strings.Contains(got, "c.md") {
		t.Errorf("local index after a teammate's line = %q; want both", got)
	}
	if got := r.remote.snapshot()["MEMORY.md"]; strings.Contains(got, "keys.md") {
		t.Errorf("server index = %q; the held line reached it", got)
	}
	// The credential edited out: the file is pushed, and its line with it.
	writeTree(t, r.dir, map[string]string{"keys.md": "the deploy key is in the vault\n"})
	r.sync(t)
	srv := r.remote.snapshot()
	if !strings.Contains(srv["MEMORY.md"], "[keys](keys.md)") || srv["keys.md"] == "" {
		t.Errorf("server after the credential went: index %q, keys.md %q; want both", srv["MEMORY.md"], srv["keys.md"])
	}
	// A new credential in it: said again (a change).
	writeTree(t, r.dir, map[string]string{"keys.md": "again " + token + "\n"})
	if rep := r.sync(t); !skipped(rep) {
		t.Errorf("a new credential: skipped %v; want keys.md said again", rep.Skipped)
	}
}

// apiPut is a put of entries.
func apiPut(entries map[string]string) api.PutRequest { return api.PutRequest{Entries: entries} }
