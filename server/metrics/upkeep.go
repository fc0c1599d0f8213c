package metrics

import "github.com/prometheus/client_golang/prometheus"

// newHealthFindings is the gauge of each repository's findings by kind.
func newHealthFindings() *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "teammem_health_findings", Help: "Findings of a team repository's last health check (GET /api/v1/health, the Health page, memory_health, the daily tidy), by kind.",
	}, []string{"repo", "kind"})
}

// HealthFindings records the counts of a repository's last health check,
// one per kind.
func (m *Metrics) HealthFindings(repo string, counts map[string]int) {
	for kind, n := range counts {
		m.healthFindings.WithLabelValues(repo, kind).Set(float64(n))
	}
}
