package client_test

import (
	"context"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/client"
)

// TestPutSurface: a push made with WithSurface names its surface in the
// Teammem-Surface header, conditional or not; one without sends none.
func TestPutSurface(t *testing.T) {
	f, c := newFakeServer(t)
	ctx := context.Background()
	req := api.PutRequest{Entries: map[string]string{"a.md": "a\n"}}
	resp, err := c.Put(client.WithSurface(ctx, "consolidation"), "acme/api", req, client.CreateOnly)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.lastRequest().Header.Get(client.SurfaceHeader); got != "consolidation" {
		t.Errorf("create-only push: %s = %q", client.SurfaceHeader, got)
	}
	req.Entries["a.md"] = "b\n"
	if _, err := c.Put(client.WithSurface(ctx, "seed"), "acme/api", req, resp.Checksum); err != nil {
		t.Fatal(err)
	}
	if got := f.lastRequest().Header; got.Get(client.SurfaceHeader) != "seed" || got.Get("If-Match") == "" {
		t.Errorf("conditional push: headers %v", got)
	}
	if _, err := c.Put(ctx, "acme/api", api.PutRequest{Entries: map[string]string{"c.md": "c\n"}}, ""); err != nil {
		t.Fatal(err)
	}
	if got, ok := f.lastRequest().Header[client.SurfaceHeader]; ok {
		t.Errorf("plain push sent %s %q", client.SurfaceHeader, got)
	}
}
