// Package servertest starts the real server in a test: the HTTP handler
// (server/router: REST, events, web UI, /mcp) over the Service, a store (the embedded one in the
// test's temporary folder unless one is given), real token verification
// with a key of its own, behind httptest. Every package that tests against
// a server in-process uses it; e2e runs the real binaries instead.
package servertest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/events"
	"github.com/teammem/teammem/server/health"
	"github.com/teammem/teammem/server/metrics"
	"github.com/teammem/teammem/server/postgres"
	"github.com/teammem/teammem/server/router"
	"github.com/teammem/teammem/server/sqlite"
)

// Options tune the server; the zero value is a server with authentication,
// the secret scan and the default limits on a fresh embedded store.
type Options struct {
	// Store is the store to serve (closed with the server); nil opens a
	// fresh embedded store in the test's temporary folder.
	Store server.Store
	// Org names the organisation (default "acme-org").
	Org       string
	Limits    server.Limits
	RateLimit float64
	Logger    *slog.Logger
	// NoAuth makes every caller the anonymous admin (--insecure-no-auth).
	NoAuth bool
	// PublicHosts are the names the server answers to (--public-host).
	PublicHosts []string
	// NoSecretScan turns the credential scan off.
	NoSecretScan bool
	// BodyCacheBytes is router's Options.BodyCacheBytes (0: the default).
	BodyCacheBytes int64
	// Broker carries the events stream's notices between replicas on one
	// Postgres (postgres.DB.NewBroker); nil: events.LocalBroker, which
	// tells no other server.
	Broker server.Broker
	// Heartbeat and StreamsPerSubject tune the events stream.
	Heartbeat         time.Duration
	StreamsPerSubject int
	// TLS serves HTTPS with HTTP/2, as --tls-cert does.
	TLS bool
	// RevocationRefresh, when set, makes the verifier check the store's
	// token revocations with this staleness bound.
	RevocationRefresh time.Duration
	// Key is the signing key (nil: a new one). The web UI seals its
	// sessions with a secret derived from it, as the server does, so
	// servers sharing a key accept each other's sessions (see Replica).
	Key ed25519.PrivateKey
	// Proposer makes the tidy proposals (nil: the review of proposals,
	// as the server's).
	Proposer health.Proposer
	// OAuth makes the server an OAuth authorization server (--oauth), its
	// client metadata documents fetched with OAuthMetadataClient (nil: the
	// server's, which refuses loopback addresses) and its access tokens
	// valid for OAuthAccessTTL (0: the default).
	OAuth               bool
	OAuthMetadataClient *http.Client
	OAuthAccessTTL      time.Duration
	// OAuthDeviceInterval is the least time between a device's polls (0:
	// the default).
	OAuthDeviceInterval time.Duration
	// PublicURL is the base URL clients reach the server by (--public-url;
	// "": each request's). Replicas behind one name share it.
	PublicURL string
	// Provider is the identity provider of the web UI's sign-in (nil:
	// tokens only); SignInRecheck how often a session asks it again.
	Provider      server.IdentityProvider
	SignInRecheck time.Duration
	// SignInGrace is how long a sign-in's grants hold while the provider
	// cannot be reached (0: the default).
	SignInGrace time.Duration
}

// Server is a running server.
type Server struct {
	URL     string
	Key     ed25519.PrivateKey
	Store   server.Store
	Service *server.Service
	Hub     *events.Hub
	Metrics *metrics.Metrics
	// Client talks to the server (trusting its certificate under TLS).
	Client *http.Client
	// Handler is the server's handler, for benchmarks without the network.
	Handler http.Handler
	// Admin is a token of subject "admin" with "**:admin" (under NoAuth the
	// server takes every caller for the anonymous admin and ignores it).
	Admin string

	t testing.TB
}

// Start starts a server for the test; it stops when the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	return start(t, o, true)
}

// Replica starts a second server beside s, as a replica behind a load
// balancer: the same signing key (so the same tokens and web UI
// sessions) on o.Store, a store of its own on the same database (closed
// with the replica), or on s's store when o.Store is nil.
func (s *Server) Replica(t testing.TB, o Options) *Server {
	t.Helper()
	o.Key = s.Key
	own := o.Store != nil
	if !own {
		o.Store = s.Store
	}
	return start(t, o, own)
}

func start(t testing.TB, o Options, closeStore bool) *Server {
	t.Helper()
	store := o.Store
	if store == nil {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "teammem.db"), sqlite.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		store = db
	}
	if o.Org == "" {
		o.Org = "acme-org"
	}
	key := o.Key
	if key == nil {
		var err error
		if _, key, err = ed25519.GenerateKey(rand.Reader); err != nil {
			t.Fatal(err)
		}
	}
	var verifier server.Authenticator
	if !o.NoAuth {
		vopts := auth.VerifierOptions{}
		if o.RevocationRefresh > 0 {
			vopts.Revocations, vopts.RevocationRefresh = store.(server.RevocationReader), o.RevocationRefresh
		}
		v, err := auth.NewVerifier(key.Public(), vopts)
		if err != nil {
			t.Fatal(err)
		}
		verifier = v
	}
	prom := metrics.New()
	instrumented := prom.InstrumentStore(store)
	review, _ := store.(server.ReviewStore)
	hub := events.NewHub(instrumented, o.Broker, events.Options{MaxPerSubject: o.StreamsPerSubject, Review: review})
	audit, _ := store.(server.AuditLog)
	svc := server.NewService(instrumented, server.Config{Org: o.Org, Limits: o.Limits, SecretScan: !o.NoSecretScan, Events: hub,
		Review: review, Audit: audit})
	ropts := router.Options{Service: svc, Events: hub, Auth: verifier, NoAuth: o.NoAuth, Metrics: prom, RateLimit: o.RateLimit,
		ServeMetrics: true, Logger: o.Logger, BodyCacheBytes: o.BodyCacheBytes, Heartbeat: o.Heartbeat,
		UISecret: key.Seed(), PublicHosts: o.PublicHosts, PublicURL: o.PublicURL,
		Provider: o.Provider, SignInRecheck: o.SignInRecheck, SignInGrace: o.SignInGrace,
		Health: &health.Checker{Service: svc, Proposer: o.Proposer}}
	if up, ok := store.(server.UpkeepStore); ok {
		ropts.Health.Upkeep = up
	}
	if ss, ok := store.(server.SessionStore); ok {
		ropts.UISessions = ss
	}
	if si, ok := store.(server.SignInStore); ok {
		ropts.SignIns = si
	}
	if o.OAuth {
		ropts.OAuth = &router.OAuth{Store: store.(server.OAuthStore), Key: key, Revocations: store.(server.RevocationStore),
			MetadataClient: o.OAuthMetadataClient, AccessTTL: o.OAuthAccessTTL, DeviceInterval: o.OAuthDeviceInterval}
	}
	h, err := router.New(ropts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(h)
	hs.Listener = prom.TrackConnections().Listener(hs.Listener)
	if o.TLS {
		hs.EnableHTTP2 = true
		hs.StartTLS()
	} else {
		hs.Start()
	}
	hubCtx, stopHub := context.WithCancel(context.Background())
	hubDone := make(chan struct{})
	go func() { defer close(hubDone); hub.Run(hubCtx) }()
	t.Cleanup(func() {
		stopHub()
		<-hubDone
		hub.Close()
		hs.Close()
		if closeStore {
			store.Close()
		}
	})
	s := &Server{URL: hs.URL, Key: key, Store: store, Service: svc, Hub: hub, Metrics: prom, Client: hs.Client(), Handler: h, t: t}
	s.Admin = s.Token("admin", "**:admin")
	return s
}

// Token issues a token for subject with grants, valid for an hour.
func (s *Server) Token(subject string, grants ...string) string {
	s.t.Helper()
	return s.TokenFor(subject, time.Hour, grants...)
}

// TokenFor issues a token for subject with grants, valid for ttl.
func (s *Server) TokenFor(subject string, ttl time.Duration, grants ...string) string {
	s.t.Helper()
	tok, err := (&auth.Issuer{Key: s.Key}).Issue(subject, grants, ttl)
	if err != nil {
		s.t.Fatal(err)
	}
	return tok
}

// ProposeOnlyToken issues a token for subject with grants whose writes all
// become proposals, valid for an hour.
func (s *Server) ProposeOnlyToken(subject string, grants ...string) string {
	s.t.Helper()
	tok, err := (&auth.Issuer{Key: s.Key, ProposeOnly: true}).Issue(subject, grants, time.Hour)
	if err != nil {
		s.t.Fatal(err)
	}
	return tok
}

// ExpiredToken issues a token for subject with grants that expired an hour
// ago (correctly signed: only its expiry refuses it).
func (s *Server) ExpiredToken(subject string, grants ...string) string {
	s.t.Helper()
	iss := &auth.Issuer{Key: s.Key, Now: func() time.Time { return time.Now().Add(-2 * time.Hour) }}
	tok, err := iss.Issue(subject, grants, time.Hour)
	if err != nil {
		s.t.Fatal(err)
	}
	return tok
}

// Revoke records a revocation in the server's store (which must keep
// revocations, as both of ours do).
func (s *Server) Revoke(r server.Revocation) {
	s.t.Helper()
	r.At = time.Now()
	if err := s.Store.(server.RevocationStore).Revoke(context.Background(), r); err != nil {
		s.t.Fatal(err)
	}
}

// PostgresReplicas starts two servers on the Postgres database at dbURL
// (migrated), each with a store of its own, as two replicas behind a load
// balancer: b shares a's key and takes a's URL for its public URL.
func PostgresReplicas(t testing.TB, o Options, dbURL string) (a, b *Server) {
	t.Helper()
	open := func() server.Store {
		db, err := postgres.Open(context.Background(), dbURL, postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	o.Store = open()
	a = Start(t, o)
	o.Store, o.PublicURL = open(), a.URL
	return a, a.Replica(t, o)
}
