package router

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server/httpkit"
)

// A few requests are refused by net/http itself, before any handler runs:
// an unsupported Transfer-Encoding (501), headers over MaxHeaderBytes (431)
// and a request that is not HTTP/1.x (400). It writes each as one fixed
// plain-text message straight to the connection and closes it. JSONErrors
// replaces exactly those messages with the error envelope every other
// answer uses. It only ever changes what net/http writes, never what the
// client sends, so request parsing (split packets, pipelining, huge
// headers) stays net/http's alone.

// plainErrorHeaders is how net/http ends the head of those messages.
const plainErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// rawError is one of net/http's own messages and what is sent instead.
type rawError struct {
	plain         []byte // net/http's message: status line, headers, body
	status        int
	code, message string // of the envelope
	reason        string // for the log line
}

var rawErrors = []rawError{
	newRawError("501 Not Implemented", "Unsupported transfer encoding", http.StatusNotImplemented,
		api.CodeUnsupportedTransferEncoding, "unsupported Transfer-Encoding",
		"The request's Transfer-Encoding is not supported; send the body with Content-Length or Transfer-Encoding: chunked."),
	newRawError("431 Request Header Fields Too Large", "431 Request Header Fields Too Large", http.StatusRequestHeaderFieldsTooLarge,
		api.CodeHeadersTooLarge, "request headers too large",
		"The request's headers are larger than the server accepts; send fewer or shorter headers."),
	newRawError("400 Bad Request", "400 Bad Request", http.StatusBadRequest,
		api.CodeMalformedRequest, "malformed HTTP request",
		"The request is not well-formed HTTP/1.1."),
}

func newRawError(statusLine, plainBody string, status int, code, reason, message string) rawError {
	return rawError{plain: []byte("HTTP/1.1 " + statusLine + plainErrorHeaders + plainBody),
		status: status, code: code, message: message, reason: reason}
}

// answer is the envelope, with a new request id, as a whole response.
func (e rawError) answer(id string) []byte {
	body, _ := json.Marshal(httpkit.ErrorEnvelope(api.TypeInvalidRequest, e.message, e.code, id, nil))
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n%s: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
		e.status, http.StatusText(e.status), api.HeaderRequestID, id, len(body))
	b.Write(body)
	return b.Bytes()
}

// JSONErrors wraps ln so that net/http's own plain-text refusals are
// answered as JSON envelopes, each logged as a refused request with the
// client's address. Put it under TLS, never over it: on a TLS listener
// the messages are encrypted and pass unchanged (net/http must see its
// *tls.Conn for HTTP/2), so with --tls-cert these few answers stay plain
// text.
func JSONErrors(ln net.Listener, log *slog.Logger) net.Listener {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return jsonErrorListener{ln, log}
}

type jsonErrorListener struct {
	net.Listener
	log *slog.Logger
}

func (l jsonErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &jsonErrorConn{Conn: c, log: l.log}, nil
}

// jsonErrorConn replaces a write that is exactly one of net/http's
// messages. net/http writes each in one call straight to the connection;
// responses of handlers go through its buffered writer and always carry
// a Date header, so they never equal one.
type jsonErrorConn struct {
	net.Conn
	log *slog.Logger
}

func (c *jsonErrorConn) Write(p []byte) (int, error) {
	for _, e := range rawErrors {
		if len(p) == len(e.plain) && bytes.Equal(p, e.plain) {
			id := httpkit.NewRequestID()
			c.log.Warn("request refused", "request_id", id, "status", e.status, "reason", e.reason, "client", c.RemoteAddr().String())
			if _, err := c.Conn.Write(e.answer(id)); err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	return c.Conn.Write(p)
}
