package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

func TestNewValidatesOptions(t *testing.T) {
	src := func(context.Context) (string, error) { return "x", nil }
	tests := []struct {
		name    string
		opts    client.Options
		wantErr string
	}{
		{"https", client.Options{BaseURL: "https://memory.example.com"}, ""},
		{"http with prefix and slash", client.Options{BaseURL: "http://127.0.0.1:8080/teammem/"}, ""},
		{"token source", client.Options{BaseURL: "http://h", TokenSource: src}, ""},
		{"empty", client.Options{}, "scheme must be http or https"},
		{"ftp", client.Options{BaseURL: "ftp://h"}, "scheme must be http or https"},
		{"relative", client.Options{BaseURL: "/api"}, "scheme must be http or https"},
		{"no scheme, loopback", client.Options{BaseURL: "127.0.0.1:8080"}, "did you mean http://127.0.0.1:8080?"},
		{"no scheme, localhost", client.Options{BaseURL: "localhost:8080"}, "did you mean http://localhost:8080?"},
		{"no scheme, a host", client.Options{BaseURL: "memory.example.com"}, "did you mean https://memory.example.com?"},
		{"the web UI's address", client.Options{BaseURL: "http://127.0.0.1:8080/ui/"}, "did you mean http://127.0.0.1:8080?"},
		{"a web UI page", client.Options{BaseURL: "https://h/teammem/ui/repo/acme/api"}, "did you mean https://h/teammem?"},
		{"the MCP endpoint", client.Options{BaseURL: "https://h/mcp"}, "did you mean https://h?"},
		{"an API path", client.Options{BaseURL: "https://h/api/claude_code/team_memory"}, "did you mean https://h?"},
		{"a prefix that merely contains ui", client.Options{BaseURL: "https://h/guild"}, ""},
		{"no host", client.Options{BaseURL: "http://"}, "no host"},
		{"query", client.Options{BaseURL: "http://h/?x=1"}, "query and fragment"},
		{"fragment", client.Options{BaseURL: "http://h/#f"}, "query and fragment"},
		{"credentials", client.Options{BaseURL: "https://u:secretpw@h"}, "credentials in the URL"},
		{"both tokens", client.Options{BaseURL: "http://h", Token: "t", TokenSource: src}, "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := client.New(tt.opts)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New error = %v, want it to contain %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "secretpw") {
				t.Errorf("error leaks the password: %v", err)
			}
		})
	}
}

func TestStringHidesToken(t *testing.T) {
	opts := client.Options{BaseURL: "https://h/p/", Token: "super-secret-token"}
	c, err := client.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{c.String(), fmt.Sprintf("%v %+v %#v", c, c, c), fmt.Sprintf("%v %+v %#v", opts, opts, opts)} {
		if strings.Contains(s, "super-secret-token") {
			t.Errorf("output leaks the token: %s", s)
		}
		if !strings.Contains(s, "[redacted]") {
			t.Errorf("output does not say a token is set: %s", s)
		}
	}
	if got := c.BaseURL(); got != "https://h/p" {
		t.Errorf("BaseURL = %q, want https://h/p", got)
	}
}

// TestRoundTrip drives every endpoint against the fake server: push, pull,
// 304, hashes, conditional push, history, revision, repos, health.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	f, c := newFakeServer(t)

	if _, err := c.Get(ctx, "acme/api", client.GetOptions{}); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("Get of a new repo = %v, want ErrNotFound", err)
	}
	put, err := c.Put(ctx, "Acme/API", api.PutRequest{Entries: map[string]string{"MEMORY.md": "# team\n", "b.md": "b"}}, "")
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	if diff := cmp.Diff([]string{"MEMORY.md", "b.md"}, put.Changed); diff != "" || put.Version != 1 {
		t.Errorf("Put changed (-want +got):\n%s version %d", diff, put.Version)
	}
	if got := f.lastRequest().URL.RawQuery; got != "repo=Acme%2FAPI" {
		t.Errorf("query = %q, want the slash encoded", got)
	}

	m, err := c.Get(ctx, "acme/api", client.GetOptions{})
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	want := &api.TeamMemory{OrganizationID: "acme-org", Repo: "acme/api", Version: 1, LastModified: "2026-01-02T03:04:05.000Z",
		Checksum: put.Checksum, Content: api.Content{Entries: map[string]string{"MEMORY.md": "# team\n", "b.md": "b"},
			EntryChecksums: map[string]string{"MEMORY.md": entryChecksum("# team\n"), "b.md": entryChecksum("b")}, DeletedEntries: map[string]int64{}}}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}

	for _, tag := range []string{put.Checksum, api.ETag(put.Checksum), `W/"` + put.Checksum + `"`} {
		if _, err := c.Get(ctx, "acme/api", client.GetOptions{IfNoneMatch: tag}); !errors.Is(err, client.ErrNotModified) {
			t.Errorf("Get If-None-Match %s = %v, want ErrNotModified", tag, err)
		}
	}
	if got := f.lastRequest().Header.Get("If-None-Match"); got != `W/"`+put.Checksum+`"` {
		t.Errorf("If-None-Match sent = %q", got)
	}

	h, err := c.Hashes(ctx, "acme/api")
	if err != nil || h.Checksum != put.Checksum || h.Version != 1 || len(h.EntryChecksums) != 2 {
		t.Fatalf("Hashes = %+v, %v", h, err)
	}

	put2, err := c.Put(ctx, "acme/api", api.PutRequest{Entries: map[string]string{"b.md": "b2"}, SoftDeleteKeys: []string{"MEMORY.md"}}, put.Checksum)
	if err != nil {
		t.Fatalf("conditional Put: %v", err)
	}
	if got := f.lastRequest().Header.Get("If-Match"); got != api.ETag(put.Checksum) {
		t.Errorf("If-Match sent = %q, want the quoted checksum", got)
	}
	if diff := cmp.Diff(&api.PutResponse{Checksum: put2.Checksum, LastModified: "2026-01-02T03:04:05.000Z", Version: 2,
		Changed: []string{"b.md"}, Deleted: []string{"MEMORY.md"}}, put2); diff != "" {
		t.Errorf("Put (-want +got):\n%s", diff)
	}

	hist, err := c.History(ctx, "acme/api", "b.md", client.HistoryOptions{Limit: 1})
	if err != nil {
		t.Fatalf("History: %v", err)
	}
	if len(hist.Revisions) != 1 || hist.Revisions[0].Version != 2 {
		t.Errorf("History limit 1 = %+v, want version 2 only", hist.Revisions)
	}
	if q := f.lastRequest().URL.Query(); q.Get("key") != "b.md" || q.Get("limit") != "1" || q.Has("before") {
		t.Errorf("History query = %v", q)
	}
	hist, err = c.History(ctx, "acme/api", "b.md", client.HistoryOptions{Before: 2})
	if err != nil || len(hist.Revisions) != 1 || hist.Revisions[0].Version != 1 {
		t.Errorf("History before 2 = %+v, %v", hist, err)
	}
	if _, err := c.History(ctx, "acme/api", "never.md", client.HistoryOptions{}); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("History of an unknown key = %v, want ErrNotFound", err)
	}

	rev, err := c.Revision(ctx, "acme/api", "b.md", 1)
	if err != nil || rev.Content != "b" || rev.Op != api.OpPut {
		t.Errorf("Revision = %+v, %v", rev, err)
	}
	rev, err = c.Revision(ctx, "acme/api", "MEMORY.md", 2)
	if err != nil || rev.Content != "" || rev.Op != api.OpDelete {
		t.Errorf("Revision of a delete = %+v, %v", rev, err)
	}

	repos, err := c.Repos(ctx)
	if err != nil {
		t.Fatalf("Repos: %v", err)
	}
	if diff := cmp.Diff(&api.RepoList{Repos: []api.RepoInfo{{Repo: "acme/api", Version: 2, Entries: 1}}}, repos, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Repos (-want +got):\n%s", diff)
	}

	if err := c.Healthz(ctx); err != nil {
		t.Errorf("Healthz: %v", err)
	}
	if err := c.Readyz(ctx); err != nil {
		t.Errorf("Readyz: %v", err)
	}
	if got := f.lastRequest().Header.Get("Authorization"); got != "" {
		t.Errorf("Readyz sent Authorization %q; health probes need no token", got)
	}
}

// TestProtocolErrors checks each error status the fake server produces the
// way protocol.md describes, through the typed accessors.
func TestProtocolErrors(t *testing.T) {
	ctx := context.Background()
	f, c := newFakeServer(t)
	first, err := c.Put(ctx, "acme/api", api.PutRequest{Entries: map[string]string{"a.md": "a"}}, "")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("412 exposes the current checksum", func(t *testing.T) {
		_, err := c.Put(ctx, "acme/api", api.PutRequest{Entries: map[string]string{"a.md": "x"}}, "sha256:stale")
		e := asAPIError(t, err, client.ErrPreconditionFailed)
		if e.CurrentChecksum() != first.Checksum || e.Code != api.CodeETagMismatch || e.Type != api.TypeConflict {
			t.Errorf("412 = %+v, want checksum %s", e, first.Checksum)
		}
	})
	t.Run("412 on a never-written repo", func(t *testing.T) {
		_, err := c.Put(ctx, "acme/new", api.PutRequest{Entries: map[string]string{"a.md": "x"}}, "*")
		asAPIError(t, err, client.ErrPreconditionFailed)
	})
	t.Run("413 too many entries", func(t *testing.T) {
		_, err := c.Put(ctx, "acme/api", api.PutRequest{Entries: map[string]string{"b.md": "b", "c.md": "c", "d.md": "d"}}, "")
		e := asAPIError(t, err, client.ErrTooLarge)
		max, received, ok := e.EntryLimit()
		if !ok || max != 3 || received != 4 || e.Code != api.CodeTooManyEntries {
			t.Errorf("EntryLimit = %d, %d, %v; code %q", max, received, ok, e.Code)
		}
	})
	t.Run("422 secret", func(t *testing.T) {
		_, err := c.Put(ctx, "acme/api", api.PutRequest{Entries: map[string]string{"k.md": "AKIAIOSFODNN7EXAMPLE"}}, "")
		e := asAPIError(t, err, client.ErrUnprocessable)
		got, ok := e.Secret()
		if diff := cmp.Diff(client.SecretFinding{Key: "k.md", RuleID: "aws-access-key", Label: "AWS access key"}, got); !ok || diff != "" {
			t.Errorf("Secret (-want +got):\n%s", diff)
		}
		if strings.Contains(err.Error(), "AKIA") {
			t.Errorf("error echoes the secret: %v", err)
		}
	})
	t.Run("410 since too old", func(t *testing.T) {
		_, err := c.Get(ctx, "acme/api", client.GetOptions{Since: 1})
		if e := asAPIError(t, err, client.ErrGone); e.Code != api.CodeSinceTooOld {
			t.Errorf("code = %q", e.Code)
		}
		if got := f.lastRequest().URL.Query().Get("since"); got != "1" {
			t.Errorf("since sent = %q", got)
		}
	})
	t.Run("400 invalid repo", func(t *testing.T) {
		_, err := c.Hashes(ctx, "noslash")
		asAPIError(t, err, client.ErrBadRequest)
	})
	t.Run("401 and 403 never leak the token", func(t *testing.T) {
		for token, want := range map[string]error{"bad-token-value": client.ErrUnauthorized, tokenOther: client.ErrForbidden} {
			_, err := newClient(t, strings.TrimSuffix(c.BaseURL(), "/"), token).Get(ctx, "acme/api", client.GetOptions{})
			e := asAPIError(t, err, want)
			if strings.Contains(err.Error(), token) || e.RequestID == "" {
				t.Errorf("error %q: leaks token or lacks request id", err)
			}
			if client.IsRetryable(err) {
				t.Errorf("IsRetryable(%v) = true", err)
			}
		}
	})
}

// asAPIError asserts err matches sentinel and is an *APIError.
func asAPIError(t *testing.T, err, sentinel error) *client.APIError {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("error = %v, want %v", err, sentinel)
	}
	var e *client.APIError
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *APIError", err)
	}
	return e
}

func TestArgumentsRequired(t *testing.T) {
	ctx := context.Background()
	_, c := newFakeServer(t)
	calls := map[string]func() error{
		"Get":          func() error { _, err := c.Get(ctx, " ", client.GetOptions{}); return err },
		"Hashes":       func() error { _, err := c.Hashes(ctx, ""); return err },
		"Put":          func() error { _, err := c.Put(ctx, "", api.PutRequest{}, ""); return err },
		"History":      func() error { _, err := c.History(ctx, "a/b", "", client.HistoryOptions{}); return err },
		"Revision":     func() error { _, err := c.Revision(ctx, "a/b", "", 1); return err },
		"Events":       func() error { _, err := c.Events(ctx, "", 0); return err },
		"History repo": func() error { _, err := c.History(ctx, "", "k", client.HistoryOptions{}); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if err := call(); err == nil || !strings.Contains(err.Error(), "required") {
				t.Errorf("error = %v, want a required-argument error", err)
			}
		})
	}
}
