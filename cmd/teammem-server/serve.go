package main

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/teammem/teammem/internal/buildinfo"
	"github.com/teammem/teammem/internal/cliflags"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/audit"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/connlimit"
	"github.com/teammem/teammem/server/events"
	"github.com/teammem/teammem/server/health"
	"github.com/teammem/teammem/server/httpkit"
	"github.com/teammem/teammem/server/mcp"
	"github.com/teammem/teammem/server/metrics"
	"github.com/teammem/teammem/server/router"
)

// serveConfig is the configuration of `serve`.
type serveConfig struct {
	addr, metricsAddr        string
	dataDir, databaseURL     string
	org, issuer              string
	limits                   server.Limits
	migrate, noMigrate       bool
	syncEachCommit           bool
	oidcIssuer, oidcAudience string
	oidcJWKSURL              string
	oidcGrants               cliflags.List
	insecureNoAuth           bool
	publicHosts              cliflags.List
	rateLimit                float64
	signingKeyFile           string
	secretScan               string
	logLevel, logFormat      string
	shutdownTimeout          time.Duration
	tombstoneRetention       time.Duration
	auditRetention           time.Duration
	auditCheckpoint          time.Duration
	dailyTidyEvery           time.Duration
	debugAddr                string
	requestTimeout           time.Duration
	bodyCacheBytes           int64
	memoryLimit              string
	maxMCPReplyBytes         int
	streamsPerSubject        int
	accessLog                bool
	maxConnections           int
	tlsCert, tlsKey          string
	revocationRefresh        time.Duration
	publicURL                string
	oauth                    bool
	oauthAccessTTL           time.Duration
	oauthPrivateMetadata     bool
	signIn                   signInConfig
}

// runServe parses the serve flags and runs the server until ctx is done.
func runServe(ctx context.Context, args []string, e env) error {
	var c serveConfig
	fs := newFlagSet("serve", "teammem-server serve [flags]", e.stderr)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "listen `HOST:PORT` (port 0 picks a free port)")
	fs.StringVar(&c.dataDir, "data-dir", "./.teammem", "`DIR` for the embedded database, the signing key and admin.token")
	fs.StringVar(&c.databaseURL, "database-url", "", "Postgres `URL` (default: the embedded store in --data-dir)")
	fs.StringVar(&c.org, "org", "default", "organization `NAME` reported as organizationId")
	fs.IntVar(&c.limits.MaxEntries, "max-entries", server.DefaultMaxEntries, "live entries per repository")
	fs.IntVar(&c.limits.MaxEntryBytes, "max-entry-bytes", server.DefaultMaxEntryBytes, "bytes per entry")
	fs.Int64Var(&c.limits.MaxBodyBytes, "max-body-bytes", server.DefaultMaxBodyBytes, "bytes per request body")
	fs.Int64Var(&c.limits.MaxRepoBytes, "max-repo-bytes", server.DefaultMaxRepoBytes, "live bytes per repository")
	fs.StringVar(&c.metricsAddr, "metrics-addr", "", "serve /metrics on this `HOST:PORT` instead of the main address")
	fs.BoolVar(&c.migrate, "migrate", false, "apply pending migrations at start (default for the embedded store)")
	fs.BoolVar(&c.noMigrate, "no-migrate", false, "never apply migrations at start; refuse to start when some are pending")
	fs.BoolVar(&c.syncEachCommit, "sync-each-commit", false, "embedded store: sync the WAL to disk before acknowledging each group of writes, so that acknowledged writes survive a power loss too (default: they survive the process's crash; see docs/operations.md)")
	fs.StringVar(&c.oidcIssuer, "oidc-issuer", "", "the OpenID Connect `ISSUER` people sign in with (with --oidc-client-id) and whose tokens CI jobs present (with --oidc-audience and --oidc-jwks-url)")
	fs.StringVar(&c.oidcAudience, "oidc-audience", "", "required audience of OIDC tokens")
	fs.StringVar(&c.oidcJWKSURL, "oidc-jwks-url", "", "`URL` of the OIDC issuer's JWKS")
	fs.Var(&c.oidcGrants, "oidc-grant", "`CLAIM:PERM`: grant PERM on the repository named by the token's CLAIM (repeatable)")
	fs.BoolVar(&c.insecureNoAuth, "insecure-no-auth", false, "no authentication, every caller is an admin (loopback addresses only)")
	fs.Var(&c.publicHosts, "public-host", "a `NAME` clients reach the server by (host name, HOST:PORT or URL; repeatable): requests addressed to any other name are then refused, IP addresses and localhost aside; without one every name is answered, unless --insecure-no-auth")
	fs.Float64Var(&c.rateLimit, "rate-limit", 2000, "requests (and MCP tool calls) per second per token subject (burst twice that; 0 = off)")
	fs.StringVar(&c.signingKeyFile, "signing-key-file", "", "Ed25519 signing key `FILE`, PKCS#8 PEM (default <data-dir>/signing.key)")
	fs.StringVar(&c.secretScan, "secret-scan", "on", "refuse entries holding credentials: on or off")
	fs.StringVar(&c.issuer, "issuer", auth.DefaultIssuer, "issuer `NAME` of this server's tokens")
	fs.StringVar(&c.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&c.logFormat, "log-format", "text", "text or json")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "serve HTTPS on --addr with this PEM certificate `FILE` (with --tls-key; default: plain HTTP, e.g. behind a TLS proxy)")
	fs.StringVar(&c.tlsKey, "tls-key", "", "the PEM private key `FILE` of --tls-cert")
	fs.BoolVar(&c.accessLog, "access-log", true, "log one line per request (--access-log=false: only errors and refusals)")
	fs.IntVar(&c.maxConnections, "max-connections", 10000, "client connections served at once on the main address; at the cap the longest-idle keep-alive connection (or one silent over 1 s) is closed for a new one, else it waits to be accepted (0 = no cap)")
	fs.DurationVar(&c.revocationRefresh, "revocation-refresh", auth.DefaultRevocationRefresh, "how stale the list of revoked tokens may be: a revocation (token revoke) is honoured within this long; each server reads the list at most once per period")
	fs.DurationVar(&c.requestTimeout, "request-timeout", 30*time.Second, "bound on a request's storage work and on each MCP tool call; past it the request is answered 503 with Retry-After (a tool call: a tool error)")
	fs.IntVar(&c.maxMCPReplyBytes, "max-mcp-reply-bytes", mcp.DefaultMaxReplyBytes, "`BYTES` of one MCP tool call's reply; a bigger one is refused with a tool error (its time is bounded by --request-timeout)")
	fs.Int64Var(&c.bodyCacheBytes, "body-cache-bytes", 32<<20, "`BYTES` of encoded GET bodies kept in memory (0 = no cache)")
	fs.StringVar(&c.memoryLimit, "memory-limit", "auto", "the Go runtime's soft memory `LIMIT`: a size such as 512MiB, off, or auto: GOMEMLIMIT when set, else 3/4 of the cgroup (container) memory limit, else none")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", 30*time.Second, "how long to wait for in-flight requests at shutdown")
	fs.StringVar(&c.debugAddr, "debug-addr", "", "serve Go's /debug/pprof/ profiles on this `HOST:PORT` (keep it private)")
	fs.IntVar(&c.streamsPerSubject, "max-streams-per-subject", events.DefaultStreamsPerSubject, "open event streams per token subject (0 = no limit)")
	fs.DurationVar(&c.dailyTidyEvery, "daily-tidy-every", 24*time.Hour, "propose a tidy of each repository whose upkeep setting asks for it this often (teammem-server upkeep --daily-tidy); 0 never")
	fs.StringVar(&c.publicURL, "public-url", "", "the server's base `URL` as clients reach it (https://memory.example.com): the issuer and resource names of OAuth; default: each request's scheme and Host")
	fs.BoolVar(&c.oauth, "oauth", true, "be an OAuth 2.1 authorization server for the API and /mcp, so MCP clients sign in through the browser (--oauth=false: static tokens only)")
	fs.DurationVar(&c.oauthAccessTTL, "oauth-access-ttl", 10*time.Minute, "lifetime of an OAuth access token (its client renews it with its refresh token)")
	fs.BoolVar(&c.oauthPrivateMetadata, "oauth-private-client-metadata", false, "fetch OAuth clients' metadata documents from private and loopback addresses too (tests; off: such client ids are refused)")
	c.signIn.flags(fs)
	fs.DurationVar(&c.tombstoneRetention, "tombstone-retention", 90*24*time.Hour, "purge tombstones older than this (clients behind it pull in full); 0 keeps them forever")
	fs.DurationVar(&c.auditRetention, "audit-retention", 0, "drop audit log entries older than this, each chain then starting at a signed checkpoint (docs/audit.md); 0 keeps them forever")
	fs.DurationVar(&c.auditCheckpoint, "audit-checkpoint-interval", time.Hour, "sign every audit chain's head this often")
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("serve takes no arguments, got %q", fs.Arg(0))}
	}
	if err := c.check(); err != nil {
		return usageError{err}
	}
	log, err := newLogger(e.stderr, c.logLevel, c.logFormat)
	if err != nil {
		return usageError{err}
	}
	applyMemoryLimit(c.memoryLimit, e.getenv, log)
	if err := c.signIn.readSecret(e.getenv); err != nil {
		return usageError{err}
	}
	// Resolve the data directory once: every file below is named from it,
	// and the log says where it is.
	if c.dataDir, err = filepath.Abs(c.dataDir); err != nil {
		return fmt.Errorf("resolve --data-dir: %w", err)
	}
	return serve(ctx, c, log)
}

// check validates flag combinations.
func (c *serveConfig) check() error {
	if err := checkPublicURL(c.publicURL); err != nil {
		return err
	}
	if c.migrate && c.noMigrate {
		return errors.New("--migrate and --no-migrate exclude each other")
	}
	if c.syncEachCommit && c.databaseURL != "" {
		return errors.New("--sync-each-commit is the embedded store's; with --database-url, Postgres's synchronous_commit decides")
	}
	if c.secretScan != "on" && c.secretScan != "off" {
		return fmt.Errorf("--secret-scan must be on or off, got %q", c.secretScan)
	}
	if c.insecureNoAuth && !isLoopback(c.addr) {
		return fmt.Errorf("--insecure-no-auth is refused on %q: it only listens on a loopback address such as 127.0.0.1:8080", c.addr)
	}
	if c.insecureNoAuth && c.metricsAddr != "" && !isLoopback(c.metricsAddr) {
		return fmt.Errorf("--insecure-no-auth is refused with a non-loopback --metrics-addr %q", c.metricsAddr)
	}
	for _, h := range c.publicHosts {
		if _, err := httpkit.PublicHost(h); err != nil {
			return fmt.Errorf("--public-host: %w", err)
		}
	}
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if c.maxConnections < 0 {
		return errors.New("--max-connections must be 0 (no cap) or positive")
	}
	if c.revocationRefresh <= 0 {
		return errors.New("--revocation-refresh must be positive")
	}
	if c.requestTimeout <= 0 || c.bodyCacheBytes < 0 {
		return errors.New("--request-timeout must be positive and --body-cache-bytes 0 or more")
	}
	if _, _, err := parseMemoryFlag(c.memoryLimit); err != nil {
		return err
	}
	if c.maxMCPReplyBytes <= 0 {
		return errors.New("--max-mcp-reply-bytes must be positive")
	}
	if c.auditRetention < 0 || c.auditCheckpoint <= 0 {
		return errors.New("--audit-retention must be 0 (forever) or positive and --audit-checkpoint-interval positive")
	}
	if c.auditRetention > 0 && c.auditRetention < c.auditCheckpoint {
		return errors.New("--audit-retention must be longer than --audit-checkpoint-interval (a pruned chain starts at a checkpoint older than the retention)")
	}
	if c.rateLimit < 0 {
		return errors.New("--rate-limit must be 0 (off) or positive")
	}
	ciTokens := c.oidcJWKSURL != "" || c.oidcAudience != "" || len(c.oidcGrants) > 0
	if ciTokens && (c.oidcIssuer == "" || c.oidcJWKSURL == "" || c.oidcAudience == "") {
		return errors.New("--oidc-issuer, --oidc-audience and --oidc-jwks-url go together (tokens of a CI provider)")
	}
	if c.oidcIssuer != "" && !ciTokens && c.signIn.clientID == "" {
		return errors.New("--oidc-issuer needs --oidc-client-id (people sign in) or --oidc-audience and --oidc-jwks-url (CI tokens), or both")
	}
	if c.streamsPerSubject < 0 {
		return errors.New("--max-streams-per-subject must be 0 (no limit) or positive")
	}
	if c.limits.MaxEntries <= 0 || c.limits.MaxEntryBytes <= 0 || c.limits.MaxBodyBytes <= 0 || c.limits.MaxRepoBytes <= 0 {
		return errors.New("the --max-* limits must be positive")
	}
	return nil
}

// storeName names the store in metrics.
func storeName(c serveConfig) string {
	if c.databaseURL != "" {
		return "postgres"
	}
	return "sqlite"
}

// cacheBytes maps --body-cache-bytes to the router's option (0 there means
// the default, negative none).
func cacheBytes(n int64) int64 {
	if n == 0 {
		return -1
	}
	return n
}

// isLoopback reports whether a listen address names only a loopback host.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func newLogger(w interface{ Write([]byte) (int, error) }, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format must be text or json, got %q", format)
}

// serve wires the store, the keys and the HTTP servers, and runs them until
// ctx is done; then it stops accepting, finishes in-flight requests and
// closes the store.
func serve(ctx context.Context, c serveConfig, log *slog.Logger) error {
	if err := os.MkdirAll(c.dataDir, 0o700); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	log.Info("data directory "+c.dataDir, "path", c.dataDir)
	store, broker, err := openStore(ctx, c, log)
	if err != nil {
		return err
	}
	defer store.Close()
	prom := metrics.New()
	prom.SetBuildInfo(buildinfo.Version(version), buildinfo.GoVersion(), storeName(c))
	prom.WatchStore(store, storeName(c))
	conns := prom.TrackConnections()
	instrumented := prom.InstrumentStore(store)
	perSubject := c.streamsPerSubject
	if perSubject == 0 {
		perSubject = -1 // no limit
	}
	review, _ := store.(server.ReviewStore) // both stores keep proposals
	hub := events.NewHub(instrumented, broker, events.Options{MaxPerSubject: perSubject, Logger: log, Review: review})
	defer hub.Close()
	hctx, stopHub := context.WithCancel(ctx)
	hubDone := make(chan struct{})
	go func() { defer close(hubDone); hub.Run(hctx) }()
	defer func() { stopHub(); <-hubDone }()
	cfg := server.Config{Org: c.org, Limits: c.limits, SecretScan: c.secretScan == "on", Events: hub}
	cfg.Review = review
	cfg.Audit, _ = store.(server.AuditLog)
	if sl, ok := store.(server.ServedLog); ok {
		served := audit.NewCoalescer(sl, replicaName())
		cfg.Served = served
		sctx, stopServed := context.WithCancel(context.WithoutCancel(ctx))
		servedDone := make(chan struct{})
		go func() {
			defer close(servedDone)
			served.Run(sctx, servedFlushInterval, c.shutdownTimeout, func(err error) { log.Warn("saving served records failed", "error", err) })
		}()
		defer func() { stopServed(); <-servedDone }() // after the servers stopped, before the store closes
	}
	upkeep, _ := store.(server.UpkeepStore) // both stores keep it
	var reads *health.ReadTracker
	if upkeep != nil {
		reads = &health.ReadTracker{Store: upkeep, Log: log}
		cfg.Reads = reads
	}
	svc := server.NewService(instrumented, cfg)
	checker := &health.Checker{Service: svc, Upkeep: upkeep}
	authn, uiSecret, err := setupAuth(ctx, c, store, log)
	if err != nil {
		return err
	}
	if c.insecureNoAuth {
		log.Warn("authentication is OFF: every request acts as an admin named anonymous (loopback only)")
	}
	if c.insecureNoAuth || len(c.publicHosts) > 0 {
		log.Info("requests addressed to a name other than an IP address, localhost, --addr's host or a --public-host are refused (421)",
			"public_hosts", c.publicHosts.String())
	}
	uiSessions, _ := store.(server.SessionStore) // both stores keep them
	idp, err := c.signIn.provider(ctx, c.oidcIssuer, log)
	if err != nil {
		return err
	}
	h, err := router.New(router.Options{Service: svc, Events: hub, Auth: authn, NoAuth: c.insecureNoAuth, Logger: log,
		Metrics: prom, RateLimit: c.rateLimit, ServeMetrics: c.metricsAddr == "", UISecret: uiSecret, UISessions: uiSessions,
		RequestTimeout: c.requestTimeout, BodyCacheBytes: cacheBytes(c.bodyCacheBytes), NoAccessLog: !c.accessLog,
		MaxMCPReplyBytes: c.maxMCPReplyBytes, Version: buildinfo.Version(version), Listen: c.addr, PublicHosts: c.publicHosts,
		Health: checker, PublicURL: c.publicURL, OAuth: oauthOptions(c, store, uiSecret), Provider: idp, SignInRecheck: c.signIn.recheck,
		SignInGrace: c.signIn.grace, SignIns: signInStore(store)})
	if err != nil {
		return err
	}
	main := newHTTPServer(h, log)
	servers := []*http.Server{main}
	listeners := []net.Listener{}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", c.addr, err)
	}
	if c.maxConnections > 0 {
		limiter := connlimit.New(c.maxConnections)
		ln, main.ConnState = limiter.Listener(ln), limiter.ConnState
	}
	ln = conns.Listener(ln)
	if c.tlsCert == "" {
		// net/http's own refusals (unsupported Transfer-Encoding, huge
		// headers) as JSON envelopes; under TLS they stay plain text.
		ln = router.JSONErrors(ln, log)
	}
	if c.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(c.tlsCert, c.tlsKey)
		if err != nil {
			ln.Close()
			return fmt.Errorf("load --tls-cert/--tls-key: %w", err)
		}
		main.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
		ln = tls.NewListener(ln, main.TLSConfig)
	}
	listeners = append(listeners, ln)
	if c.metricsAddr != "" {
		mln, err := net.Listen("tcp", c.metricsAddr)
		if err != nil {
			closeAll(listeners)
			return fmt.Errorf("listen on %s for metrics: %w", c.metricsAddr, err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", prom.Handler())
		servers = append(servers, newHTTPServer(mux, log))
		listeners = append(listeners, mln)
		log.Info("metrics listening on "+mln.Addr().String(), "addr", mln.Addr().String())
	}
	if c.debugAddr != "" {
		dln, err := net.Listen("tcp", c.debugAddr)
		if err != nil {
			closeAll(listeners)
			return fmt.Errorf("listen on %s for debugging: %w", c.debugAddr, err)
		}
		servers = append(servers, newHTTPServer(debugMux(), log))
		listeners = append(listeners, dln)
		log.Info("debug profiles on "+dln.Addr().String(), "addr", dln.Addr().String())
	}
	jctx, stopJanitor := context.WithCancel(ctx)
	defer stopJanitor()
	go runJanitor(jctx, store, c.tombstoneRetention, log)
	if al, ok := store.(server.AuditLog); ok {
		go runAuditUpkeep(jctx, al, ed25519.NewKeyFromSeed(uiSecret), c.auditRetention, c.auditCheckpoint, log)
	}
	var upkeepDone sync.WaitGroup
	defer upkeepDone.Wait() // after stopJanitor: the reads noted last are written before the store closes
	if reads != nil {
		upkeepDone.Go(func() { reads.Run(jctx) })
	}
	if c.dailyTidyEvery > 0 {
		upkeepDone.Go(func() { (&health.Daily{Checker: checker, Every: c.dailyTidyEvery, Log: log}).Run(jctx) })
	}
	log.Info("listening on "+ln.Addr().String(), "addr", ln.Addr().String(), "tls", c.tlsCert != "", "version", buildinfo.Version(version))
	ui := uiURL(ln.Addr(), c.tlsCert != "")
	log.Info("web UI at "+ui+" (sign in with a token; the admin's is in "+dataPath(c, adminTokenName)+")", "url", ui, "admin_token", dataPath(c, adminTokenName))
	return runServers(ctx, servers, listeners, c.shutdownTimeout, hub.Close, log)
}

// uiURL is the web UI's address for the start log: the listener's, with a
// loopback host in place of an unspecified one (0.0.0.0 is not an address
// a browser opens).
func uiURL(addr net.Addr, tls bool) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "/ui/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port) + "/ui/"
}

// newHTTPServer applies the timeouts and the 64 KiB header limit.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// runServers serves every listener until ctx is done or one fails, then
// shuts all down gracefully; closeStreams ends the event streams first,
// since they never finish on their own.
func runServers(ctx context.Context, servers []*http.Server, lns []net.Listener, grace time.Duration, closeStreams func(), log *slog.Logger) error {
	errc := make(chan error, len(servers))
	for i, s := range servers {
		go func(s *http.Server, ln net.Listener) { errc <- s.Serve(ln) }(s, lns[i])
	}
	var serveErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down: finishing in-flight requests")
	case serveErr = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	closeStreams()
	for _, s := range servers {
		if err := s.Shutdown(sctx); err != nil {
			log.Warn("shutdown incomplete", "error", err)
		}
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", serveErr)
	}
	log.Info("stopped")
	return nil
}

// closeAll closes listeners opened before a later one failed.
func closeAll(lns []net.Listener) {
	for _, l := range lns {
		l.Close()
	}
}

// debugMux serves the runtime profiles of net/http/pprof.
func debugMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// dataPath joins a file name to the data directory.
func dataPath(c serveConfig, name string) string { return filepath.Join(c.dataDir, name) }
