package deploytest

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/testkit/servertest"
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
	ts := servertest.Start(t, servertest.Options{Org: "o", NoSecretScan: true})
	ts.Metrics.SetBuildInfo("test", "go", "sqlite")
	ts.Metrics.WatchStore(ts.Store, "sqlite")
	tok := ts.Admin
	send := func(method, path, token string, body string, hdr ...string) string {
		return string(ts.Send(false, method, path, token, []byte(body), hdr...).Body)
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
