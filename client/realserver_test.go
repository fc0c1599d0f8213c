package client_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestAgainstRealServer drives the real server (embedded store, real auth)
// through the SDK, covering every endpoint and typed error.
func TestAgainstRealServer(t *testing.T) {
	ctx := context.Background()
	ts := servertest.Start(t, servertest.Options{Org: "o", Limits: server.Limits{MaxEntries: 3}})
	issue := func(sub string, grants ...string) *client.Client {
		c, err := client.New(client.Options{BaseURL: ts.URL, Token: ts.Token(sub, grants...)})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := issue("ana", "acme/*:write")

	if _, err := c.Get(ctx, "acme/api", client.GetOptions{}); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("Get of new repo: %v", err)
	}
	put, err := c.Put(ctx, "acme/api", api.PutRequest{Entries: map[string]string{"a.md": "a", "b.md": "b"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := protocol.DatasetChecksum(map[string]string{"a.md": protocol.EntryChecksum([]byte("a")), "b.md": protocol.EntryChecksum([]byte("b"))})
	if put.Checksum != want {
		t.Errorf("checksum %s, want %s", put.Checksum, want)
	}
	tm, err := c.Get(ctx, "Acme/API.git", client.GetOptions{})
	if err != nil || tm.Content.Entries["b.md"] != "b" || tm.Repo != "acme/api" {
		t.Fatalf("Get = %+v, %v", tm, err)
	}
	if _, err := c.Get(ctx, "acme/api", client.GetOptions{IfNoneMatch: put.Checksum}); !errors.Is(err, client.ErrNotModified) {
		t.Errorf("conditional Get: %v", err)
	}
	if h, err := c.Hashes(ctx, "acme/api"); err != nil || len(h.EntryChecksums) != 2 {
		t.Errorf("Hashes = %+v, %v", h, err)
	}
	if _, err := c.Put(ctx, "acme/api", api.PutRequest{SoftDeleteKeys: []string{"b.md"}}, put.Checksum); err != nil {
		t.Fatal(err)
	}
	if info, err := c.ServerInfo(ctx); err != nil || info.ServerID != ts.Service.ServerID() {
		t.Errorf("ServerInfo = %+v, %v; want %q", info, err, ts.Service.ServerID())
	}
	// More keys than one request may ask about: asked in several.
	ask := map[string]string{"a.md": protocol.EntryChecksum([]byte("a")), "b.md": protocol.EntryChecksum([]byte("b"))}
	for i := range api.MaxSeenEntries + 5 {
		ask[fmt.Sprintf("n%04d.md", i)] = protocol.EntryChecksum([]byte("a"))
	}
	if seen, err := c.Seen(ctx, "acme/api", ask); err != nil || len(seen) != 2 || seen["a.md"] != 1 || seen["b.md"] != 2 {
		t.Errorf("Seen = %v, %v; want a.md at 1, b.md (deleted) at 2", seen, err)
	}
	if _, err := issue("bob", "other/*:read").Seen(ctx, "acme/api", ask); !errors.Is(err, client.ErrForbidden) {
		t.Errorf("Seen without a grant: %v; want ErrForbidden", err)
	}
	_, err = c.Put(ctx, "acme/api", api.PutRequest{Entries: map[string]string{"c.md": "c"}}, put.Checksum)
	var ae *client.APIError
	if !errors.Is(err, client.ErrPreconditionFailed) || !errors.As(err, &ae) || ae.CurrentChecksum() == "" || ae.RequestID == "" {
		t.Errorf("stale If-Match: %v", err)
	}
	_, err = c.Put(ctx, "acme/api", api.PutRequest{Entries: map[string]string{"c.md": "c", "d.md": "d", "e.md": "e"}}, "")
	if max, got, ok := toAPIError(err).EntryLimit(); !errors.Is(err, client.ErrTooLarge) || !ok || max != 3 || got != 4 {
		t.Errorf("too many entries: %v (%d %d)", err, max, got)
	}
	sk, err := c.Put(ctx, "acme/api", api.PutRequest{Entries: map[string]string{"s.md": "token: ghp_" + randomToken(36)}}, "")
	if err != nil || len(sk.Skipped) != 1 || sk.Skipped[0].Key != "s.md" || sk.Skipped[0].Reason != api.SkipSecretDetected || sk.Skipped[0].RuleID == "" {
		t.Errorf("secret: %v %+v; want s.md skipped", err, sk)
	}
	if h, err := c.History(ctx, "acme/api", "b.md", client.HistoryOptions{}); err != nil || len(h.Revisions) != 2 || h.Revisions[0].Op != api.OpDelete {
		t.Errorf("History = %+v, %v", h, err)
	}
	if a, err := c.Activity(ctx, "acme/api", client.HistoryOptions{Limit: 1}); err != nil || len(a.Items) != 1 ||
		!slices.Equal(a.Items[0].Deleted, []string{"b.md"}) || a.Next == nil || *a.Next != a.Items[0].Version {
		t.Errorf("Activity = %+v, %v", a, err)
	}
	if _, err := c.Activity(ctx, "acme/none", client.HistoryOptions{}); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("Activity of an unknown repo = %v, want ErrNotFound", err)
	}
	if r, err := c.Revision(ctx, "acme/api", "a.md", 1); err != nil || r.Content != "a" {
		t.Errorf("Revision = %+v, %v", r, err)
	}
	if l, err := c.Repos(ctx); err != nil || len(l.Repos) != 1 {
		t.Errorf("Repos = %+v, %v", l, err)
	}
	if err := c.Healthz(ctx); err != nil {
		t.Error(err)
	}
	if err := c.Readyz(ctx); err != nil {
		t.Error(err)
	}
	if _, err := issue("bob", "other/*:write").Get(ctx, "acme/api", client.GetOptions{}); !errors.Is(err, client.ErrForbidden) {
		t.Errorf("no grant: %v", err)
	}
	bad, _ := client.New(client.Options{BaseURL: ts.URL, Token: "nope"})
	if _, err := bad.Get(ctx, "acme/api", client.GetOptions{}); !errors.Is(err, client.ErrUnauthorized) || client.IsRetryable(err) {
		t.Errorf("bad token: %v", err)
	}
	if _, err := c.Get(ctx, "acme//api", client.GetOptions{}); !errors.Is(err, client.ErrBadRequest) {
		t.Errorf("bad slug: %v", err)
	}
}

// randomToken returns n random letters and digits (a real-looking credential
// body; fixed strings are what scanners ignore).
func randomToken(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func toAPIError(err error) *client.APIError {
	var ae *client.APIError
	if errors.As(err, &ae) {
		return ae
	}
	return &client.APIError{}
}

// TestEventsFromVersionZero: a subscription resuming after version 0 (an
// agent whose first pull found no repository) announces the first version
// even when it was written between that pull and the subscription, which
// one following only from the current version never did (two machines
// starting at once on a new personal memory missed each other's first
// push until the five-minute safety poll).
func TestEventsFromVersionZero(t *testing.T) {
	ts := servertest.Start(t, servertest.Options{})
	c, err := client.New(client.Options{BaseURL: ts.URL, Token: ts.Token("ana", "acme/*:write")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Get(ctx, "acme/api", client.GetOptions{}); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("first pull: %v", err)
	}
	if _, err := c.Put(ctx, "acme/api", api.PutRequest{Entries: map[string]string{"a.md": "a"}}, ""); err != nil {
		t.Fatal(err)
	}
	s, err := c.Events(ctx, "acme/api", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ev, err := s.Next()
	if err != nil || ev.Reset || ev.Version != 1 {
		t.Fatalf("first event = %+v, %v; want version 1", ev, err)
	}
}
