package postgres_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/testkit/pgtest"
)

func TestUnreachableIsUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	_, err = postgres.Open(context.Background(), "postgres://postgres@"+addr+"/x?sslmode=disable", postgres.Options{})
	if !errors.Is(err, server.ErrUnavailable) {
		t.Fatalf("Open on a closed port = %v; want ErrUnavailable", err)
	}
	_, _, err = postgres.Migrate(context.Background(), "postgres://postgres@"+addr+"/x?sslmode=disable", "version", 0)
	if !errors.Is(err, server.ErrUnavailable) {
		t.Fatalf("Migrate on a closed port = %v; want ErrUnavailable", err)
	}
}

// TestServerRestart puts a TCP proxy between the store and PostgreSQL and
// takes it down and up again, as a server restart would: while it is down
// every call fails with ErrUnavailable, and once it is back the same DB
// serves again without being reopened.
func TestServerRestart(t *testing.T) {
	target := freshURL(t, pgtest.URL(t))
	u, _ := url.Parse(target)
	p := startProxy(t, "127.0.0.1:0", u.Host)
	u.Host = p.addr
	db := open(t, u.String(), postgres.Options{Migrate: true, MaxConns: 2})
	ctx := context.Background()
	w := server.Write{Repo: "acme/api", Puts: []server.Put{{Key: "a.md", Content: "x", Checksum: "sha256:x"}}, Author: "a"}
	if _, err := db.Apply(ctx, w); err != nil {
		t.Fatal(err)
	}
	p.stop()
	for range 3 {
		if _, err := db.RepoState(ctx, "acme/api"); !errors.Is(err, server.ErrUnavailable) {
			t.Fatalf("RepoState with the server down = %v; want ErrUnavailable", err)
		}
	}
	if _, err := db.Apply(ctx, w); !errors.Is(err, server.ErrUnavailable) {
		t.Fatalf("Apply with the server down = %v; want ErrUnavailable", err)
	}
	startProxy(t, p.addr, p.target) // the server is back on the same address
	var err error
	for range 10 { // at most one failure per pooled connection
		if _, err = db.RepoState(ctx, "acme/api"); err == nil {
			break
		}
		if !errors.Is(err, server.ErrUnavailable) {
			t.Fatalf("RepoState after the restart = %v; want success or ErrUnavailable", err)
		}
	}
	if err != nil {
		t.Fatalf("RepoState never recovered after the restart: %v", err)
	}
	if err := db.Ping(ctx); err != nil {
		t.Errorf("Ping after the restart: %v", err)
	}
}

// proxy forwards TCP connections from addr to target until stopped.
type proxy struct {
	addr, target string
	ln           net.Listener
	mu           sync.Mutex
	conns        []net.Conn
}

func startProxy(t *testing.T, addr, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{addr: ln.Addr().String(), target: target, ln: ln}
	go p.serve()
	t.Cleanup(p.stop)
	return p
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(s, c); s.Close() }()
		go func() { _, _ = io.Copy(c, s); c.Close() }()
	}
}

// stop closes the listener and every forwarded connection.
func (p *proxy) stop() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
