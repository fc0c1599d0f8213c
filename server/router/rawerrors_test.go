package router_test

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server/router"
	"github.com/teammem/teammem/testkit/proctest"
	"github.com/teammem/teammem/testkit/servertest"
)

// rawServer serves the test server's handler on a listener wrapped by
// JSONErrors, with the header limit of teammem-server serve.
func rawServer(t *testing.T, logs io.Writer) (*servertest.Server, string) {
	t.Helper()
	ts := servertest.Start(t, servertest.Options{})
	hs := httptest.NewUnstartedServer(ts.Handler)
	hs.Config.MaxHeaderBytes = 64 << 10
	hs.Listener = router.JSONErrors(hs.Listener, slog.New(slog.NewTextHandler(logs, nil)))
	hs.Start()
	t.Cleanup(hs.Close)
	return ts, hs.Listener.Addr().String()
}

// rawExchange writes the parts to a new connection, pausing between them
// (a request head split across packets), and reads n responses.
func rawExchange(t *testing.T, addr string, n int, parts ...string) []*http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	for i, p := range parts {
		if i > 0 {
			time.Sleep(30 * time.Millisecond)
		}
		if _, err := io.WriteString(conn, p); err != nil {
			t.Fatal(err)
		}
	}
	rd := bufio.NewReader(conn)
	var out []*http.Response
	for range n {
		resp, err := http.ReadResponse(rd, nil)
		if err != nil {
			t.Fatalf("reading response %d: %v", len(out)+1, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(strings.NewReader(string(body)))
		out = append(out, resp)
	}
	return out
}

// wantEnvelope checks a response is the JSON envelope with status and code.
func wantEnvelope(t *testing.T, resp *http.Response, status int, code string) {
	t.Helper()
	body, _ := io.ReadAll(resp.Body)
	var env api.ErrorEnvelope
	if err := json.Unmarshal(body, &env); err != nil || resp.StatusCode != status || env.Error.Code() != code ||
		env.Error.Type != api.TypeInvalidRequest || env.Error.Message == "" {
		t.Fatalf("%d %q; want %d with the envelope of %s", resp.StatusCode, body, status, code)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if id := resp.Header.Get(api.HeaderRequestID); id == "" || env.Error.Details["request_id"] != id {
		t.Errorf("request id header %q, in the body %v", id, env.Error.Details["request_id"])
	}
	if !resp.Close {
		t.Error("the connection is not closed after the refusal")
	}
}

const putHead = "PUT " + api.PathTeamMemory + "?repo=acme/api HTTP/1.1\r\nHost: teammem\r\nContent-Type: application/json\r\n"

func TestUnsupportedTransferEncodingIsJSON(t *testing.T) {
	var logs proctest.Buffer
	_, addr := rawServer(t, &logs)
	for _, tt := range []struct {
		name  string
		parts []string
	}{
		{"gzip", []string{putHead + "Transfer-Encoding: gzip\r\n\r\n"}},
		{"identity", []string{putHead + "Transfer-Encoding: identity\r\n\r\n"}},
		{"chunked then gzip", []string{putHead + "Transfer-Encoding: chunked, gzip\r\n\r\n"}},
		{"two fields", []string{putHead + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"}},
		{"head split across packets", []string{putHead + "Transfer-", "Encoding: gz", "ip\r\n", "\r\n"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantEnvelope(t, rawExchange(t, addr, 1, tt.parts...)[0], http.StatusNotImplemented, api.CodeUnsupportedTransferEncoding)
		})
	}
	if !strings.Contains(logs.String(), `msg="request refused"`) || !strings.Contains(logs.String(), "status=501") ||
		!strings.Contains(logs.String(), "reason=\"unsupported Transfer-Encoding\"") || !strings.Contains(logs.String(), "client=127.0.0.1:") {
		t.Errorf("no refusal line with reason and client:\n%s", logs.String())
	}
}

// TestRawRefusalsHostile: pipelined requests are answered in order up to
// the refused one; huge headers and garbage get envelopes too; a valid
// chunked body is untouched.
func TestRawRefusalsHostile(t *testing.T) {
	var logs proctest.Buffer
	ts, addr := rawServer(t, &logs)
	t.Run("pipelined", func(t *testing.T) {
		rs := rawExchange(t, addr, 2, "GET "+api.PathHealthz+" HTTP/1.1\r\nHost: teammem\r\n\r\n"+putHead+"Transfer-Encoding: gzip\r\n\r\n")
		if rs[0].StatusCode != 200 {
			t.Errorf("first pipelined request: %d", rs[0].StatusCode)
		}
		wantEnvelope(t, rs[1], http.StatusNotImplemented, api.CodeUnsupportedTransferEncoding)
	})
	t.Run("huge headers", func(t *testing.T) {
		r := rawExchange(t, addr, 1, "GET "+api.PathHealthz+" HTTP/1.1\r\nHost: teammem\r\nX-Big: "+strings.Repeat("x", 70<<10)+"\r\n\r\n")[0]
		wantEnvelope(t, r, http.StatusRequestHeaderFieldsTooLarge, api.CodeHeadersTooLarge)
	})
	t.Run("not HTTP", func(t *testing.T) {
		wantEnvelope(t, rawExchange(t, addr, 1, "HELLO THERE\r\n\r\n")[0], http.StatusBadRequest, api.CodeMalformedRequest)
	})
	t.Run("chunked body", func(t *testing.T) {
		body := `{"entries":{"a.md":"Transfer-Encoding: gzip"}}`
		chunked := "Authorization: Bearer " + ts.Admin + "\r\nTransfer-Encoding: CHUNKED\r\n\r\n" +
			strconv.FormatInt(int64(len(body)), 16) + "\r\n" + body + "\r\n0\r\n\r\n"
		r := rawExchange(t, addr, 1, putHead+chunked)[0]
		if b, _ := io.ReadAll(r.Body); r.StatusCode != 200 || r.Close {
			t.Errorf("chunked PUT: %d %s (close %v); want 200 on a kept connection", r.StatusCode, b, r.Close)
		}
	})
}
