package realclient

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Request is one request a Recorder received.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// Recorder is a local HTTP server that keeps every request it receives,
// body included, and hands it to a handler: the stand-in for a model's API
// that a client under test is pointed at. It is safe for concurrent use.
type Recorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []Request
}

// NewRecorder starts a Recorder on a loopback port serving h; it is
// closed when t ends.
func NewRecorder(t testing.TB, h http.Handler) *Recorder {
	r := &Recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, Request{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Body: body})
		r.mu.Unlock()
		req.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// URL is the server's base URL, such as http://127.0.0.1:41234.
func (r *Recorder) URL() string { return r.srv.URL }

// Requests returns a copy of the requests received so far, in order.
func (r *Recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.reqs...)
}

// Reset forgets the requests received so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.reqs = nil
	r.mu.Unlock()
}

// Sent reports whether any request received so far holds s in its path,
// a header or its body.
func (r *Recorder) Sent(s string) bool {
	for _, req := range r.Requests() {
		if strings.Contains(req.Path, s) || bytes.Contains(req.Body, []byte(s)) {
			return true
		}
		for _, vs := range req.Header {
			for _, v := range vs {
				if strings.Contains(v, s) {
					return true
				}
			}
		}
	}
	return false
}
