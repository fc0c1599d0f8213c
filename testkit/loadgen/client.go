package loadgen

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/teammem/teammem/api"
)

// client sends the protocol's requests to one server with one token.
type client struct {
	base  string
	token string
	repo  string
	http  *http.Client
}

// reply is what a request got back.
type reply struct {
	status int
	header http.Header
	body   []byte // only when asked for
}

// newHTTPClient returns a client that keeps a connection alive per worker.
func newHTTPClient(conns int, timeout time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = conns * 2
	t.MaxIdleConnsPerHost = conns * 2
	t.MaxConnsPerHost = 0
	t.DisableCompression = true // do asks for gzip itself and inflates only what it reads
	return &http.Client{Transport: t, Timeout: timeout}
}

// url returns the team memory URL of the client's repo with extra query
// pairs (name, value, name, value...).
func (c *client) url(path string, pairs ...string) string {
	q := url.Values{"repo": {c.repo}}
	for i := 0; i+1 < len(pairs); i += 2 {
		q.Set(pairs[i], pairs[i+1])
	}
	return strings.TrimSuffix(c.base, "/") + path + "?" + q.Encode()
}

// do sends one request. body, when not nil, is sent as JSON; the response
// body is read to the end (so the connection is reused) and kept only when
// keep is true.
func (c *client) do(ctx context.Context, method, target string, header http.Header, body []byte, keep bool) (reply, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return reply{}, fmt.Errorf("build request: %w", err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	// Asked for explicitly, a gzip body is not inflated by the transport:
	// a worker that discards its body does not spend the machine's CPU on
	// it (the server would then be measured idling between requests).
	req.Header.Set("Accept-Encoding", "gzip")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: %w", method, api.PathTeamMemory, err)
	}
	defer resp.Body.Close()
	r := reply{status: resp.StatusCode, header: resp.Header}
	if keep {
		r.body, err = readBody(resp)
	} else {
		_, err = io.Copy(io.Discard, resp.Body)
	}
	if err != nil {
		return reply{}, fmt.Errorf("read %s response: %w", method, err)
	}
	return r, nil
}

// readBody reads a response body, inflating a gzip one.
func readBody(resp *http.Response) ([]byte, error) {
	if resp.Header.Get("Content-Encoding") != "gzip" {
		return io.ReadAll(resp.Body)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(zr)
}

// excerpt shortens a response body for an error message.
func excerpt(b []byte) string {
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
