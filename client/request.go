package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
)

// maxErrorBytes caps the body read from an error response: envelopes are small.
const maxErrorBytes = 64 << 10

// request is one call to the server.
type request struct {
	method string
	path   string
	query  url.Values
	header http.Header
	body   []byte // nil for no body
	auth   bool   // send the bearer token
}

// do performs r within the client's timeout and decodes a 2xx JSON body into
// out (nil: the body is discarded). It returns the response headers, also on
// an *APIError.
func (c *Client) do(ctx context.Context, r request, out any) (http.Header, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	resp, err := c.send(ctx, r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if err := c.checkStatus(ctx, resp); err != nil {
		return resp.Header, err
	}
	return resp.Header, c.decodeBody(ctx, resp, out)
}

// withTimeout applies Options.Timeout to ctx; its expiry is the cause
// errRequestTimeout, telling it apart from the caller's own deadline.
func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout < 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, c.timeout, errRequestTimeout)
}

// send builds and sends r; the caller closes the response body.
func (c *Client) send(ctx context.Context, r request) (*http.Response, error) {
	req, err := c.newRequest(ctx, r)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, classify(ctx, err)
	}
	return resp, nil
}

// newRequest builds the *http.Request of r with its headers.
func (c *Client) newRequest(ctx context.Context, r request) (*http.Request, error) {
	u := *c.base
	u.Path += r.path
	u.RawQuery = r.query.Encode()
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", c.userAgent)
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.auth {
		if err := c.authorize(ctx, req); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// authorize sets the bearer token, if the client has one.
func (c *Client) authorize(ctx context.Context, req *http.Request) error {
	if c.token == nil {
		return nil
	}
	tok, err := c.token(ctx)
	if err != nil {
		return fmt.Errorf("get token: %w", err)
	}
	if tok == "" {
		return errors.New("get token: token source returned an empty token")
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	return nil
}

// checkStatus returns nil for a 2xx, ErrNotModified for a 304 and an
// *APIError for anything else.
func (c *Client) checkStatus(ctx context.Context, resp *http.Response) error {
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		return nil
	case resp.StatusCode == http.StatusNotModified:
		return ErrNotModified
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
	if err != nil && ctx.Err() != nil {
		return classify(ctx, err)
	}
	// A truncated error body still yields an APIError from the status.
	return newAPIError(resp, body, c.now())
}

// decodeBody reads at most maxBody bytes of a 2xx body and decodes it into
// out; out nil discards the body.
func (c *Client) decodeBody(ctx context.Context, resp *http.Response, out any) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return classify(ctx, err)
	}
	if int64(len(body)) > c.maxBody {
		return fmt.Errorf("%w: body larger than %d bytes", ErrInvalidResponse, c.maxBody)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%w: decode %d body: %v", ErrInvalidResponse, resp.StatusCode, err)
	}
	return nil
}

// classify turns a transport error into the client's vocabulary: the
// caller's cancellation or deadline as is, the client's own timeout and
// transport timeouts as ErrTimeout, anything else as ErrNetwork.
func classify(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		if errors.Is(cause, ErrTimeout) {
			return cause
		}
		return cause
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return fmt.Errorf("%w: %w", ErrNetwork, err)
}
