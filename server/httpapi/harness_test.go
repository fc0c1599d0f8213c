package httpapi_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/internal/openapitest"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/events"
	"github.com/teammem/teammem/server/httpapi"
	"github.com/teammem/teammem/server/metrics"
	"github.com/teammem/teammem/server/sqlite"
)

// testServer is a real server (embedded store, real auth) behind httptest.
type testServer struct {
	t      *testing.T
	url    string
	key    ed25519.PrivateKey
	admin  string
	doc    *openapi3.T
	store  server.Store
	svc    *server.Service
	hub    *events.Hub
	client *http.Client
	h      http.Handler // the handler itself, for benchmarks without the network
}

type serverOpts struct {
	limits    server.Limits
	rateLimit float64
	store     server.Store
	logger    *slog.Logger
	noAuth    bool // Options.NoAuth: every caller is the anonymous admin
	// bodyCache is Options.BodyCacheBytes (0: the default).
	bodyCache int64
	// heartbeat and streamsPerSubject tune the events stream.
	heartbeat         time.Duration
	streamsPerSubject int
	// tls serves HTTPS with HTTP/2, as --tls-cert does.
	tls bool
	// revocationRefresh, when set, makes the verifier check the store's
	// token revocations with this staleness bound.
	revocationRefresh time.Duration
}

func newTestServer(t *testing.T, o serverOpts) *testServer {
	t.Helper()
	ctx := context.Background()
	store := o.store
	if store == nil {
		db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "teammem.db"), sqlite.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		store = db
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	vopts := auth.VerifierOptions{}
	if o.revocationRefresh > 0 {
		vopts.Revocations, vopts.RevocationRefresh = store.(server.RevocationReader), o.revocationRefresh
	}
	verifier, err := auth.NewVerifier(key.Public(), vopts)
	if err != nil {
		t.Fatal(err)
	}
	prom := metrics.New()
	instrumented := prom.InstrumentStore(store)
	hub := events.NewHub(instrumented, nil, events.Options{MaxPerSubject: o.streamsPerSubject})
	svc := server.NewService(instrumented, server.Config{Org: "acme-org", Limits: o.limits, SecretScan: true, Events: hub})
	h := httpapi.NewHandler(httpapi.Options{Service: svc, Events: hub, Auth: verifier, Metrics: prom, RateLimit: o.rateLimit, ServeMetrics: true,
		Logger: o.logger, BodyCacheBytes: o.bodyCache, Heartbeat: o.heartbeat, NoAuth: o.noAuth})
	hs := httptest.NewUnstartedServer(h)
	hs.Listener = prom.TrackConnections().Listener(hs.Listener)
	if o.tls {
		hs.EnableHTTP2 = true
		hs.StartTLS()
	} else {
		hs.Start()
	}
	t.Cleanup(func() { hub.Close(); hs.Close(); store.Close() })
	ts := &testServer{t: t, url: hs.URL, key: key, doc: openapitest.Load(t), store: store, svc: svc, hub: hub, client: hs.Client(), h: h}
	ts.admin = ts.token("admin", "**:admin")
	return ts
}

// token issues a token signed by the server's key.
func (ts *testServer) token(subject string, grants ...string) string {
	ts.t.Helper()
	tok, err := (&auth.Issuer{Key: ts.key}).Issue(subject, grants, time.Hour)
	if err != nil {
		ts.t.Fatal(err)
	}
	return tok
}

// response is one exchange's result.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) errorBody(t *testing.T) api.ErrorBody {
	t.Helper()
	var env api.ErrorEnvelope
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatalf("status %d: body is not the error envelope: %v: %s", r.status, err, r.body)
	}
	if env.Error.Type == "" || env.Error.Message == "" || env.Error.Code() == "" {
		t.Fatalf("incomplete error envelope: %s", r.body)
	}
	return env.Error
}

// do sends one request and checks the exchange against openapi.yaml.
func (ts *testServer) do(method, path, token string, body []byte, headers ...string) response {
	ts.t.Helper()
	return ts.send(true, method, path, token, body, headers...)
}

// newRequest makes a request to path with token (when not "") and the
// header name/value pairs.
func (ts *testServer) newRequest(ctx context.Context, method, path, token string, body io.Reader, headers ...string) *http.Request {
	ts.t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, ts.url+path, body)
	if err != nil {
		ts.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// send sends one request, checking it against openapi.yaml when validate.
func (ts *testServer) send(validate bool, method, path, token string, body []byte, headers ...string) response {
	ts.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req := ts.newRequest(context.Background(), method, path, token, rd, headers...)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := ts.client.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		ts.t.Fatal(err)
	}
	if validate {
		openapitest.ValidateResponse(ts.t, ts.doc, req, resp, b)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// put pushes entries and deletes, failing the test unless the status is want.
func (ts *testServer) put(repo string, entries map[string]string, deletes []string, want int, headers ...string) response {
	ts.t.Helper()
	body, _ := json.Marshal(api.PutRequest{Entries: entries, SoftDeleteKeys: deletes})
	r := ts.do(http.MethodPut, api.PathTeamMemory+"?repo="+repo, ts.admin, body, headers...)
	if r.status != want {
		ts.t.Fatalf("PUT %s: status %d, want %d: %s", repo, r.status, want, r.body)
	}
	return r
}

// get pulls a repository, failing unless the status is want.
func (ts *testServer) get(query string, want int, headers ...string) response {
	ts.t.Helper()
	r := ts.do(http.MethodGet, api.PathTeamMemory+"?"+query, ts.admin, nil, headers...)
	if r.status != want {
		ts.t.Fatalf("GET %s: status %d, want %d: %s", query, r.status, want, r.body)
	}
	return r
}

func decode[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decode %T: %v: %s", v, err, r.body)
	}
	return v
}
