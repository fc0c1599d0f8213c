package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/openapitest"
)

// Response is one exchange's result.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// ErrorBody decodes the error envelope, failing the test unless it is one
// with a type, a message and an error code.
func (r Response) ErrorBody(t testing.TB) api.ErrorBody {
	t.Helper()
	var env api.ErrorEnvelope
	if err := json.Unmarshal(r.Body, &env); err != nil {
		t.Fatalf("status %d: body is not the error envelope: %v: %s", r.Status, err, r.Body)
	}
	if env.Error.Type == "" || env.Error.Message == "" || env.Error.Code() == "" {
		t.Fatalf("incomplete error envelope: %s", r.Body)
	}
	return env.Error
}

// Decode decodes a JSON response body, failing the test if it does not.
func Decode[T any](t testing.TB, r Response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("decode %T: %v: %s", v, err, r.Body)
	}
	return v
}

// Do sends one request and checks the exchange against openapi.yaml.
func (s *Server) Do(method, path, token string, body []byte, headers ...string) Response {
	s.t.Helper()
	return s.Send(true, method, path, token, body, headers...)
}

// NewRequest makes a request to path with token (when not "") and the
// header name/value pairs.
func (s *Server) NewRequest(ctx context.Context, method, path, token string, body io.Reader, headers ...string) *http.Request {
	s.t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// Send sends one request, checking it against openapi.yaml when validate.
func (s *Server) Send(validate bool, method, path, token string, body []byte, headers ...string) Response {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req := s.NewRequest(context.Background(), method, path, token, rd, headers...)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	if validate {
		openapitest.CheckExchange(s.t, req, resp, b)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Put pushes entries and deletes as the admin, failing the test unless the
// status is want.
func (s *Server) Put(repo string, entries map[string]string, deletes []string, want int, headers ...string) Response {
	s.t.Helper()
	body, _ := json.Marshal(api.PutRequest{Entries: entries, SoftDeleteKeys: deletes})
	r := s.Do(http.MethodPut, api.PathTeamMemory+"?repo="+repo, s.Admin, body, headers...)
	if r.Status != want {
		s.t.Fatalf("PUT %s: status %d, want %d: %s", repo, r.Status, want, r.Body)
	}
	return r
}

// Get pulls a repository as the admin, failing unless the status is want.
func (s *Server) Get(query string, want int, headers ...string) Response {
	s.t.Helper()
	r := s.Do(http.MethodGet, api.PathTeamMemory+"?"+query, s.Admin, nil, headers...)
	if r.Status != want {
		s.t.Fatalf("GET %s: status %d, want %d: %s", query, r.Status, want, r.Body)
	}
	return r
}
