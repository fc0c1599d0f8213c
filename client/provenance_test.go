package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
	"github.com/teammem/teammem/testkit/servertest"
)

// TestProvenanceAndBlame: a push carries the client's machine (kept to
// what every server accepts), its User-Agent and the surface and commit
// of its context; Blame reads every line with its revision.
func TestProvenanceAndBlame(t *testing.T) {
	ctx := context.Background()
	ts := servertest.Start(t, servertest.Options{})
	c, err := client.New(client.Options{BaseURL: ts.URL, Token: ts.Token("ana", "acme/*:write"), UserAgent: "teammem-agent/1.4.0",
		Machine: "Ana’s MacBook\u202e Pro.local\t" + string(make([]byte, 100))})
	if err != nil {
		t.Fatal(err)
	}
	const commit = "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39"
	seedCtx := client.WithCommit(client.WithSurface(ctx, "seed"), commit)
	if _, err := c.Put(seedCtx, "acme/api", api.PutRequest{Entries: map[string]string{"MEMORY.md": "- a\n"}}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(ctx, "acme/api", api.PutRequest{Entries: map[string]string{"MEMORY.md": "- a\n- b\n"}}, ""); err != nil {
		t.Fatal(err)
	}
	h, err := c.History(ctx, "acme/api", "MEMORY.md", client.HistoryOptions{})
	if err != nil || len(h.Revisions) != 2 {
		t.Fatalf("History = %+v, %v", h, err)
	}
	seeded, plain := h.Revisions[1].Provenance, h.Revisions[0].Provenance
	if seeded.Surface != "seed" || seeded.Commit != commit || seeded.Machine != "AnasMacBookPro.local" || seeded.Client != "teammem-agent/1.4.0" {
		t.Errorf("seed push: %+v", seeded)
	}
	if plain.Surface != "agent" || plain.Commit != "" || plain.Machine != "AnasMacBookPro.local" {
		t.Errorf("plain push: %+v", plain)
	}
	b, err := c.Blame(ctx, "acme/api", "MEMORY.md", 0)
	if err != nil || len(b.Lines) != 2 || b.Lines[0].Version != 1 || b.Lines[1].Version != 2 || len(b.Revisions) != 2 {
		t.Fatalf("Blame = %+v, %v", b, err)
	}
	if _, err := c.Blame(ctx, "acme/api", "never.md", 0); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("Blame of a key never written: %v; want ErrNotFound", err)
	}
}

// TestConsolidationSurface: a consolidation's push (WithSurface) keeps
// the commit its context carries, and the server records it as made
// through the consolidation surface rather than refusing the header.
func TestConsolidationSurface(t *testing.T) {
	ctx := context.Background()
	ts := servertest.Start(t, servertest.Options{})
	c, err := client.New(client.Options{BaseURL: ts.URL, Token: ts.Token("ana", "acme/*:write")})
	if err != nil {
		t.Fatal(err)
	}
	const commit = "0123456789abcdef0123456789abcdef01234567"
	pushCtx := client.WithSurface(client.WithCommit(ctx, commit), "consolidation")
	if got := client.ProvenanceOf(pushCtx); got != (client.Provenance{Surface: "consolidation", Commit: commit}) {
		t.Fatalf("ProvenanceOf = %+v", got)
	}
	if _, err := c.Put(pushCtx, "acme/api", api.PutRequest{Entries: map[string]string{"topic.md": "# t\n"}}, ""); err != nil {
		t.Fatal(err)
	}
	h, err := c.History(ctx, "acme/api", "topic.md", client.HistoryOptions{})
	if err != nil || len(h.Revisions) != 1 {
		t.Fatalf("History = %+v, %v", h, err)
	}
	if p := h.Revisions[0].Provenance; p == nil || p.Surface != "consolidation" || p.Commit != commit {
		t.Errorf("consolidation push: %+v", p)
	}
}
