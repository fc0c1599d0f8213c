package deploytest

import (
	"strings"
	"testing"
)

func TestCompose(t *testing.T) {
	docs := documents(t, "docker-compose.yml")
	if len(docs) != 1 {
		t.Fatalf("docker-compose.yml: %d documents, want 1", len(docs))
	}
	c := docs[0]
	pg := dig(c, "services", "postgres")
	srv := dig(c, "services", "teammem")
	if pg == nil || srv == nil {
		t.Fatalf("want services postgres and teammem, got %v", dig(c, "services"))
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"postgres is postgres:16", dig(pg, "image") == "postgres:16"},
		{"postgres health check runs pg_isready", strings.Contains(strings.Join(strs(dig(pg, "healthcheck", "test")), " "), "pg_isready")},
		{"postgres data on a volume", strings.HasPrefix(strings.Join(strs(dig(pg, "volumes")), " "), "pgdata:/var/lib/postgresql/data")},
		{"server built from deploy/Dockerfile", dig(srv, "build", "dockerfile") == "deploy/Dockerfile"},
		{"server health check runs teammem-server healthcheck", strings.Contains(strings.Join(strs(dig(srv, "healthcheck", "test")), " "), "teammem-server healthcheck")},
		{"no default Postgres password", strings.Contains(asString(dig(pg, "environment", "POSTGRES_PASSWORD")), "${POSTGRES_PASSWORD:?") &&
			!strings.Contains(string(read(t, "docker-compose.yml")), "POSTGRES_PASSWORD:-")},
		{"server migrates", contains(strs(dig(srv, "command")), "--migrate")},
		{"server has TEAMMEM_DATABASE_URL", strings.HasPrefix(asString(dig(srv, "environment", "TEAMMEM_DATABASE_URL")), "postgres://")},
		{"server waits for a healthy postgres", dig(srv, "depends_on", "postgres", "condition") == "service_healthy"},
		{"server data on a volume", contains(strs(dig(srv, "volumes")), "teammem-data:/data")},
		{"server port only on loopback", contains(strs(dig(srv, "ports")), "127.0.0.1:8080:8080")},
		{"volumes declared", hasKey(dig(c, "volumes"), "pgdata", "teammem-data")},
	}
	for _, ck := range checks {
		if !ck.ok {
			t.Errorf("docker-compose.yml: want %s", ck.name)
		}
	}
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

func hasKey(v any, keys ...string) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}
