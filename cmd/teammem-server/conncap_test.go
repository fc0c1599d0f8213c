package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
)

// TestIdleConnectionsDoNotHoldTheCap: the real server with
// --max-connections 4, the cap filled by keep-alive connections that each
// sent one GET /healthz and went idle (a cap that kept them would stall
// every new client for the 120 s idle timeout), still answers a new
// client's /healthz.
func TestIdleConnectionsDoNotHoldTheCap(t *testing.T) {
	base, _ := startServer(t, t.TempDir(), "--max-connections", "4")
	addr := strings.TrimPrefix(base, "http://")
	for range 4 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET "+api.PathHealthz+" HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	cl := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := cl.Get(base + api.PathHealthz)
	if err != nil {
		t.Fatalf("a new client with the cap held by idle connections: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("healthz = %d", resp.StatusCode)
	}
}
