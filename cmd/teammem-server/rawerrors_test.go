package main

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
)

// putGzipEncoded sends a PUT with Transfer-Encoding: gzip over conn
// (closed at the test's end) and reads the answer.
func putGzipEncoded(t *testing.T, conn net.Conn) *http.Response {
	t.Helper()
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(conn, "PUT %s?repo=acme/api HTTP/1.1\r\nHost: teammem\r\nTransfer-Encoding: gzip\r\n\r\n", api.PathTeamMemory)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestUnsupportedTransferEncoding sends a PUT with Transfer-Encoding: gzip
// over a raw connection to the real server: the answer is the JSON
// envelope, 501 unsupported_transfer_encoding, not net/http's plain text.
func TestUnsupportedTransferEncoding(t *testing.T) {
	base, _ := startServer(t, t.TempDir())
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	resp := putGzipEncoded(t, conn)
	body, _ := io.ReadAll(resp.Body)
	var env api.ErrorEnvelope
	if err := json.Unmarshal(body, &env); err != nil || resp.StatusCode != 501 || env.Error.Code() != api.CodeUnsupportedTransferEncoding {
		t.Errorf("Transfer-Encoding: gzip = %d %s; want 501 with the envelope of unsupported_transfer_encoding", resp.StatusCode, body)
	}
}

// TestUnsupportedTransferEncodingOverTLS records the limit of the JSON
// answer: under --tls-cert net/http must see its own *tls.Conn (HTTP/2,
// r.TLS), so the refusal stays its plain-text 501; HTTP/2 still works.
func TestUnsupportedTransferEncodingOverTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	base, _ := startServer(t, dir, "--tls-cert", cert, "--tls-key", key)
	addr := strings.TrimPrefix(base, "http://")
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	resp := putGzipEncoded(t, conn)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotImplemented {
		t.Errorf("Transfer-Encoding: gzip over TLS = %d; want 501", resp.StatusCode)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}}
	h2, err := c.Get("https://" + addr + api.PathHealthz)
	if err != nil {
		t.Fatal(err)
	}
	h2.Body.Close()
	if h2.StatusCode != 200 || h2.ProtoMajor != 2 {
		t.Errorf("HTTPS /healthz = %d over %s; want 200 over HTTP/2", h2.StatusCode, h2.Proto)
	}
}
