// Package deploytest lints the deployment files that no test can run on a
// machine without Docker or Kubernetes: docker-compose.yml, deploy/Dockerfile,
// the systemd unit and deploy/k8s. Its tests parse each file and check the
// properties the project relies on (non-root, static build, health checks,
// probes, secrets by reference). It also runs scripts/dist.sh (`make dist`)
// for the host's target and checks the archive it makes.
package deploytest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Root returns the repository root: dir or the nearest parent holding go.mod.
func Root(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("find root: %w", errors.New("no go.mod above "+dir))
		}
		dir = parent
	}
}
