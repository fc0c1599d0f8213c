package openapitest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

func init() {
	// The events stream is described, not parsed: take its body as a string.
	openapi3filter.RegisterBodyDecoder("text/event-stream", openapi3filter.PlainBodyDecoder)
}

var routerCache sync.Map // *openapi3.T → routers.Router

// router returns a router for doc that ignores the servers list, so that a
// request to any httptest address finds its operation.
func router(doc *openapi3.T) (routers.Router, error) {
	if r, ok := routerCache.Load(doc); ok {
		return r.(routers.Router), nil
	}
	local := *doc
	local.Servers = nil
	r, err := gorillamux.NewRouter(&local)
	if err != nil {
		return nil, fmt.Errorf("build router: %w", err)
	}
	routerCache.Store(doc, r)
	return r, nil
}

// requestIsDeliberatelyBad reports whether status answers a request that a
// test sent malformed or unauthenticated on purpose; such a request is not
// checked against the document, only the response is.
func requestIsDeliberatelyBad(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusUnauthorized,
		http.StatusRequestEntityTooLarge, http.StatusMethodNotAllowed:
		return true
	}
	return false
}

// CheckExchange validates one exchange against doc and returns what does not
// conform. req is the request as sent (its body is re-read through GetBody,
// which http.NewRequest sets for in-memory bodies); resp is its response and
// body the response body already read. The request itself is checked unless
// the status is 400, 401, 405 or 413, the answers to requests that tests
// send malformed on purpose; the response is always checked, and a status
// the operation does not document is an error.
func Check(ctx context.Context, doc *openapi3.T, req *http.Request, resp *http.Response, body []byte) error {
	r, err := router(doc)
	if err != nil {
		return err
	}
	route, params, err := r.FindRoute(req)
	if err != nil {
		return fmt.Errorf("%s %s: no operation in %s: %w", req.Method, req.URL.Path, DocumentName, err)
	}
	in := &openapi3filter.RequestValidationInput{
		Request:    withFreshBody(req),
		PathParams: params,
		Route:      route,
		Options:    options(),
	}
	if in.Request.Body == nil || in.Request.Body == http.NoBody {
		in.Options.ExcludeRequestBody = req.ContentLength != 0
	}
	if !requestIsDeliberatelyBad(resp.StatusCode) {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			return fmt.Errorf("%s %s: request does not conform: %w", req.Method, req.URL.RequestURI(), err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Options:                in.Options,
	}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		return fmt.Errorf("%s %s → %d (operation %s): response does not conform: %w%s\nbody: %s",
			req.Method, req.URL.RequestURI(), resp.StatusCode, route.Operation.OperationID, err,
			oneOfHint(doc, route, req, resp.StatusCode, body), excerpt(body))
	}
	return nil
}

// ValidateResponse checks one exchange with Check and fails the test with
// its message when it does not conform to openapi.yaml.
func ValidateResponse(t testing.TB, doc *openapi3.T, req *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	if err := Check(context.Background(), doc, req, resp, body); err != nil {
		t.Errorf("openapi: %v", err)
	}
}

// options are the validation options of Check: bearer tokens accepted,
// undocumented statuses rejected, every problem reported, each in one line.
func options() *openapi3filter.Options {
	o := &openapi3filter.Options{
		AuthenticationFunc:    acceptBearer,
		IncludeResponseStatus: true,
		MultiError:            true,
	}
	o.WithCustomSchemaErrorFunc(schemaProblem)
	return o
}

// schemaProblem formats one schema error as "at /json/pointer: reason".
func schemaProblem(err *openapi3.SchemaError) string {
	return "at /" + strings.Join(err.JSONPointer(), "/") + ": " + err.Reason
}

// withFreshBody returns req with a readable copy of its body when GetBody
// can give one, and with no body otherwise.
func withFreshBody(req *http.Request) *http.Request {
	r := req.Clone(req.Context())
	r.Body = http.NoBody
	if req.GetBody != nil {
		if b, err := req.GetBody(); err == nil {
			data, _ := io.ReadAll(b)
			_ = b.Close()
			r.Body = io.NopCloser(bytes.NewReader(data))
		}
	}
	return r
}

// acceptBearer is the AuthenticationFunc: the document's bearerAuth holds
// when the request carries a bearer token; whether the token is good is the
// server's business, and its 401 is checked as a response.
func acceptBearer(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	h := in.RequestValidationInput.Request.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") || token == "" {
		return fmt.Errorf("no bearer token in Authorization")
	}
	return nil
}

func excerpt(body []byte) string {
	const max = 2000
	if len(body) > max {
		return string(body[:max]) + "…"
	}
	return string(body)
}

var (
	sharedOnce sync.Once
	sharedDoc  *openapi3.T
	sharedErr  error
)

// CheckExchange validates one exchange against openapi.yaml, loaded once per test
// binary (found above the working directory).
func CheckExchange(t testing.TB, req *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	sharedOnce.Do(func() {
		var path string
		if path, sharedErr = Find("."); sharedErr == nil {
			sharedDoc, sharedErr = LoadFile(context.Background(), path)
		}
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	ValidateResponse(t, sharedDoc, req, resp, body)
}
