package deploytest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
	"github.com/teammem/teammem/server/auth"
	"github.com/teammem/teammem/server/events"
	"github.com/teammem/teammem/server/httpapi"
	"github.com/teammem/teammem/server/metrics"
	"github.com/teammem/teammem/server/sqlite"
)

// metricRef finds the metric names a PromQL expression uses: ours, the Go
// and process collectors', and Prometheus's own up.
var metricRef = regexp.MustCompile(`\b(?:teammem|process|go)_[a-zA-Z0-9_]+|\bup\b`)

// TestMonitoringUsesRealMetrics: every metric the Grafana dashboard and the
// alert rules in deploy/monitoring query is one the real server exports.
func TestMonitoringUsesRealMetrics(t *testing.T) {
	exported := exportedMetrics(t)
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(read(t, "deploy/monitoring/grafana-dashboard.json"), &dash); err != nil {
		t.Fatalf("grafana-dashboard.json: %v", err)
	}
	exprs := map[string]string{}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs["dashboard panel "+p.Title] += tg.Expr + "\n"
		}
	}
	rules := documents(t, "deploy/monitoring/alerts.yaml")
	for _, g := range dig(rules[0], "groups").([]any) {
		for _, r := range dig(g, "rules").([]any) {
			exprs["alert "+asString(dig(r, "alert"))] = asString(dig(r, "expr"))
		}
	}
	if len(exprs) < 10 {
		t.Fatalf("only %d dashboard panels and alerts found", len(exprs))
	}
	for where, expr := range exprs {
		refs := metricRef.FindAllString(expr, -1)
		if len(refs) == 0 {
			t.Errorf("%s queries no metric: %q", where, expr)
		}
		for _, m := range refs {
			if m != "up" && !exported[m] {
				t.Errorf("%s uses %s, which the server does not export", where, m)
			}
		}
	}
}

// exportedMetrics starts the real handler on the embedded store, sends a
// few requests so every labelled family has a series, and returns the
// sample names /metrics shows.
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "teammem.db"), sqlite.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	verifier, err := auth.NewVerifier(key.Public(), auth.VerifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.New()
	m.SetBuildInfo("test", "go", "sqlite")
	m.WatchStore(store, "sqlite")
	conns := m.TrackConnections()
	hub := events.NewHub(store, nil, events.Options{})
	defer hub.Close()
	svc := server.NewService(m.InstrumentStore(store), server.Config{Org: "o", Events: hub})
	hs := httptest.NewUnstartedServer(httpapi.NewHandler(httpapi.Options{Service: svc, Events: hub, Auth: verifier, Metrics: m, ServeMetrics: true}))
	hs.Listener = conns.Listener(hs.Listener)
	hs.Start()
	defer hs.Close()
	tok, _ := (&auth.Issuer{Key: key}).Issue("admin", []string{"**:admin"}, time.Hour)
	send := func(method, path, token, body string, hdr ...string) string {
		req, _ := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	repo := api.PathTeamMemory + "?repo=acme/mon"
	send("PUT", repo, tok, `{"entries":{"a.md":"a"}}`)
	send("GET", repo, tok, "")
	send("PUT", repo, tok, `{"entries":{"a.md":"b"}}`, "If-Match", `"sha256:nope"`)
	send("GET", repo, "bad", "")
	text := send("GET", api.PathMetrics, "", "")
	names := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, _, _ := strings.Cut(line, "{")
		name, _, _ = strings.Cut(name, " ")
		names[name] = true
	}
	return names
}
