package main

import (
	"bufio"
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

// TestUnsupportedTransferEncoding sends a PUT with Transfer-Encoding: gzip
// over a raw connection to the real server: the answer is the JSON
// envelope, 501 unsupported_transfer_encoding, not net/http's plain text.
func TestUnsupportedTransferEncoding(t *testing.T) {
	base, _ := startServer(t, t.TempDir())
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(conn, "PUT %s?repo=acme/api HTTP/1.1\r\nHost: teammem\r\nTransfer-Encoding: gzip\r\n\r\n", api.PathTeamMemory)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	var env api.ErrorEnvelope
	if err := json.Unmarshal(body, &env); err != nil || resp.StatusCode != 501 || env.Error.Code() != api.CodeUnsupportedTransferEncoding {
		t.Errorf("Transfer-Encoding: gzip = %d %s; want 501 with the envelope of unsupported_transfer_encoding", resp.StatusCode, body)
	}
}
